// Sites, people, roles, sessions, management credentials and the instance signing key.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sites (
      id uuid primary key,
      slug text not null unique,
      name text not null,
      domain text not null unique check (domain = lower(domain)),
      created_at timestamptz not null
    );

    create table site_languages (
      site_id uuid not null references sites(id) on delete cascade,
      code text not null,
      position int not null,
      is_default boolean not null default false,
      primary key (site_id, code)
    );
    create unique index site_languages_one_default on site_languages (site_id) where is_default;

    create table users (
      id uuid primary key,
      email text not null unique check (email = lower(email)),
      display_name text not null,
      password_hash text not null,
      status text not null default 'active' check (status in ('active', 'deactivated')),
      created_at timestamptz not null
    );

    create table roles (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      name text not null,
      permissions jsonb not null,
      created_at timestamptz not null,
      unique (site_id, name)
    );

    create table site_members (
      site_id uuid not null references sites(id) on delete cascade,
      user_id uuid not null references users(id) on delete cascade,
      role_id uuid not null references roles(id),
      created_at timestamptz not null,
      primary key (site_id, user_id)
    );

    create table sessions (
      id uuid primary key,
      token_digest text not null unique,
      user_id uuid not null references users(id) on delete cascade,
      created_at timestamptz not null,
      expires_at timestamptz not null
    );
    create index sessions_user on sessions (user_id);

    create table management_credentials (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      creator_id uuid not null references users(id),
      name text not null,
      scopes jsonb not null,
      models jsonb,
      secret_digest text not null unique,
      created_at timestamptz not null,
      revoked_at timestamptz
    );
    create index management_credentials_site on management_credentials (site_id);

    create table instance_keys (
      name text primary key,
      secret text not null,
      created_at timestamptz not null
    );
  `.execute(db);
}
