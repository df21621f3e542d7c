// Creates what a new installation needs: a site, its languages, roles, an admin and optionally a credential.
import { z } from "zod";
import { seedDefaultRoles } from "../access/roles.ts";
import { generatePassword, hashPassword } from "../auth/password.ts";
import type { Clock } from "../clock.ts";
import { insertCredential } from "../credentials/credential_store.ts";
import type { Db } from "../db/database.ts";

/** Input of {@link createInstallation}. */
export interface InstallationInput {
  domain: string;
  /** Defaults to the domain with every other character than a-z and 0-9 turned into "-". */
  slug?: string;
  name?: string;
  /** Language codes; the first is the default. */
  locales: string[];
  adminEmail: string;
  /** When given, a management credential acting as the admin is created too. */
  credential?: { name: string; scopes: string[] };
}

/** What was created, with the secrets that are shown only now. */
export interface InstallationCreated {
  ok: true;
  site: { id: string; slug: string; domain: string; languages: string[] };
  admin: { id: string; email: string; password: string };
  management_credential?: {
    id: string;
    name: string;
    scopes: string[];
    secret: string;
  };
}

/** A refusal that changed nothing. */
export interface InstallationRefused {
  ok: false;
  code: "site_exists" | "invalid_input";
  message: string;
}

const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
const inputSchema = z.object({
  domain: z.string().regex(
    /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/,
    "expected a lowercase host name without port",
  ),
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/).optional(),
  name: z.string().min(1).max(200).optional(),
  locales: z.array(
    z.string().regex(LOCALE, "expected a language code such as en or de-AT"),
  ).min(1)
    .refine(
      (list) => new Set(list).size === list.length,
      "languages must not repeat",
    ),
  adminEmail: z.email().transform((e) => e.toLowerCase()),
  credential: z.object({
    name: z.string().min(1).max(200),
    scopes: z.array(z.string()).min(1),
  }).optional(),
});

/** Creates a whole installation in one transaction; a second one for a domain is refused. */
export async function createInstallation(
  ctx: { db: Db; clock: Clock },
  input: InstallationInput,
  validateScopes: (scopes: string[]) => string[] = () => [],
): Promise<InstallationCreated | InstallationRefused> {
  const parsed = inputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      code: "invalid_input",
      message: `${issue.path.join(".")}: ${issue.message}`,
    };
  }
  const v = parsed.data;
  const badScopes = v.credential ? validateScopes(v.credential.scopes) : [];
  if (badScopes.length > 0) {
    return {
      ok: false,
      code: "invalid_input",
      message: `Unknown scopes: ${badScopes.join(", ")}`,
    };
  }
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const now = ctx.clock.now();
  const siteId = crypto.randomUUID();
  const slug = v.slug ??
    v.domain.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const taken = await trx.selectFrom("sites").select("id")
        .where((eb) =>
          eb.or([eb("domain", "=", v.domain), eb("slug", "=", slug)])
        ).executeTakeFirst();
      if (taken) throw new SiteExists();
      await trx.insertInto("sites").values({
        id: siteId,
        slug,
        name: v.name ?? v.domain,
        domain: v.domain,
        created_at: now,
      })
        .execute();
      await trx.insertInto("site_languages").values(
        v.locales.map((code, position) => ({
          site_id: siteId,
          code,
          position,
          is_default: position === 0,
        })),
      ).execute();
      const roles = await seedDefaultRoles(trx, siteId, ctx.clock);
      let user = await trx.selectFrom("users").select(["id"]).where(
        "email",
        "=",
        v.adminEmail,
      ).executeTakeFirst();
      if (user) {
        throw new SiteExists(
          `A person with email "${v.adminEmail}" already exists`,
        );
      }
      user = { id: crypto.randomUUID() };
      await trx.insertInto("users").values({
        id: user.id,
        email: v.adminEmail,
        display_name: v.adminEmail.split("@")[0],
        password_hash: passwordHash,
        status: "active",
        created_at: now,
      }).execute();
      await trx.insertInto("site_members").values({
        site_id: siteId,
        user_id: user.id,
        role_id: roles.administrator.id,
        created_at: now,
      }).execute();
      const created: InstallationCreated = {
        ok: true,
        site: { id: siteId, slug, domain: v.domain, languages: v.locales },
        admin: { id: user.id, email: v.adminEmail, password },
      };
      if (v.credential) {
        const { credential, secret } = await insertCredential(trx, ctx.clock, {
          siteId,
          creatorId: user.id,
          name: v.credential.name,
          scopes: v.credential.scopes,
          models: null,
        });
        created.management_credential = {
          id: credential.id,
          name: credential.name,
          scopes: credential.scopes,
          secret,
        };
      }
      return created;
    });
  } catch (error) {
    if (error instanceof SiteExists) {
      return { ok: false, code: "site_exists", message: error.message };
    }
    throw error;
  }
}

class SiteExists extends Error {
  constructor(message = "A site with this domain or slug already exists") {
    super(message);
  }
}
