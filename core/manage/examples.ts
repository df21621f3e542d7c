// Requests and answers recorded on the demo site (`deno task start`, then the first session in docs/management-api.md), shown as OpenAPI examples.
// A test parses each with its operation's schemas (tests/manage/contract_test.ts), so an example cannot drift from the contract.

/** Example request body and success answer by operation name. */
export const MANAGE_EXAMPLES: Record<
  string,
  { request?: unknown; response?: unknown }
> = {
  "get-site": {
    "response": {
      "id": "1718e54c-8b37-41c8-8037-e8c10b3a3d97",
      "slug": "demo",
      "name": "Stave demo",
      "domain": "localhost",
      "languages": [
        "en",
        "de",
      ],
      "default_language": "en",
    },
  },
  "list-languages": {
    "response": {
      "data": [
        {
          "code": "en",
          "is_default": true,
          "position": 0,
        },
        {
          "code": "de",
          "is_default": false,
          "position": 1,
        },
      ],
      "default_language": "en",
    },
  },
  "add-language": {
    "request": {
      "code": "fr",
    },
    "response": {
      "code": "fr",
      "is_default": false,
      "position": 2,
    },
  },
  "get-settings": {
    "response": {
      "key": "editorial",
      "document": {
        "version_retention_days": null,
        "review_required": false,
      },
      "revision": 0,
      "updated_at": null,
    },
  },
  "put-settings": {
    "request": {
      "expected_revision": 0,
      "document": {
        "version_retention_days": 365,
        "review_required": true,
      },
    },
  },
  "list-entries": {
    "response": {
      "data": [
        {
          "id": "1d795ecf-8af2-4a62-a472-e83e583d0922",
          "model_id": "e5a08756-0b2d-448c-b99c-bcc365e6a326",
          "state": "published",
          "revision": 1,
          "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "locales": {
            "en": {
              "entry_id": "dbaccdb8-57d2-43c4-a011-dae6858e1d69",
              "slug": "hello",
              "state": "published",
              "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
              "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
              "published_at": "2026-11-23T23:16:32.749Z",
              "fields": {
                "title": "Hello",
                "category": "news",
                "published_on": "2026-11-23",
              },
            },
          },
          "created_at": "2026-11-23T23:16:20.714Z",
          "updated_at": "2026-11-23T23:16:32.749Z",
          "trashed_at": null,
        },
      ],
      "page": {
        "limit": 1,
        "has_more": true,
        "next_cursor": "eyJsaXN0IjoiZW50cmllczplNWEw\u2026",
      },
    },
  },
  "create-entry": {
    "request": {
      "model_id": "e5a08756-0b2d-448c-b99c-bcc365e6a326",
      "locale": "en",
      "slug": "hello",
      "fields": {
        "title": "Hello",
        "published_on": "2026-11-23",
        "category": "news",
      },
    },
    "response": {
      "id": "1d795ecf-8af2-4a62-a472-e83e583d0922",
      "model_id": "e5a08756-0b2d-448c-b99c-bcc365e6a326",
      "state": "draft",
      "revision": 0,
      "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
      "published_version_id": null,
      "locales": {
        "en": {
          "entry_id": "dbaccdb8-57d2-43c4-a011-dae6858e1d69",
          "slug": "hello",
          "state": "draft",
          "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "published_version_id": null,
          "published_at": null,
        },
      },
    },
  },
  "get-entry": {
    "response": {
      "id": "1d795ecf-8af2-4a62-a472-e83e583d0922",
      "model_id": "e5a08756-0b2d-448c-b99c-bcc365e6a326",
      "state": "published",
      "revision": 1,
      "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
      "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
      "locales": {
        "en": {
          "entry_id": "dbaccdb8-57d2-43c4-a011-dae6858e1d69",
          "slug": "hello",
          "state": "published",
          "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "published_at": "2026-11-23T23:16:32.749Z",
          "fields": {
            "title": "Hello",
            "category": "news",
            "published_on": "2026-11-23",
          },
        },
      },
      "created_at": "2026-11-23T23:16:20.714Z",
      "updated_at": "2026-11-23T23:16:32.749Z",
      "trashed_at": null,
      "review_stage": "draft",
      "assignee_id": null,
      "workflow": {
        "revision": 1,
        "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
        "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
        "transitions": [
          {
            "kind": "unpublish",
            "to": "draft",
          },
        ],
        "locales": {
          "en": {
            "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
            "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
            "transitions": [
              {
                "kind": "unpublish",
                "to": "draft",
              },
            ],
          },
        },
      },
    },
  },
  "update-entry": {
    "request": {
      "locale": "en",
      "expected_current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
      "fields": {
        "title": "Hello, world",
        "published_on": "2026-11-23",
        "category": "news",
      },
    },
    "response": {
      "id": "1d795ecf-8af2-4a62-a472-e83e583d0922",
      "model_id": "e5a08756-0b2d-448c-b99c-bcc365e6a326",
      "state": "published",
      "revision": 1,
      "current_version_id": "1df1667e-887e-40f4-813a-24ce862e8270",
      "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
      "locales": {
        "en": {
          "entry_id": "dbaccdb8-57d2-43c4-a011-dae6858e1d69",
          "slug": "hello",
          "state": "published",
          "current_version_id": "1df1667e-887e-40f4-813a-24ce862e8270",
          "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "published_at": "2026-11-23T23:16:32.749Z",
        },
      },
      "policy_results": [],
    },
  },
  "publish-entry": {
    "request": {
      "expected_current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
      "expected_workflow_revision": 0,
    },
    "response": {
      "id": "1d795ecf-8af2-4a62-a472-e83e583d0922",
      "model_id": "e5a08756-0b2d-448c-b99c-bcc365e6a326",
      "state": "published",
      "revision": 1,
      "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
      "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
      "locales": {
        "en": {
          "entry_id": "dbaccdb8-57d2-43c4-a011-dae6858e1d69",
          "slug": "hello",
          "state": "published",
          "current_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "published_version_id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "published_at": "2026-11-23T23:16:32.749Z",
        },
      },
      "policy_results": [],
    },
  },
  "list-entry-versions": {
    "response": {
      "data": [
        {
          "id": "5db9f7f1-1fc9-4eb9-97b5-509070a1bf80",
          "number": 1,
          "locale": "en",
          "entry_id": "dbaccdb8-57d2-43c4-a011-dae6858e1d69",
          "created_at": "2026-11-23T23:16:20.714Z",
          "created_by": {
            "kind": "credential",
            "name": "script",
            "creator_id": "9d58fc70-d547-4ca3-8df4-f6b247afca3f",
            "creator_email": "admin@example.com",
            "credential_id": "0dd94d5d-1d43-4a42-bce1-619fbdc10bc5",
          },
          "current": true,
          "published": true,
        },
      ],
      "page": {
        "limit": 25,
        "has_more": false,
        "next_cursor": null,
      },
    },
  },
  "list-trash": {
    "response": {
      "data": [],
      "page": {
        "limit": 25,
        "has_more": false,
        "next_cursor": null,
      },
    },
  },
  "list-menus": {
    "response": {
      "data": [],
    },
  },
};
