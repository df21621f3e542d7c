-- Releases (spec 1 parts 2.10, 3.3, 4.5 rule 7): up to 25 publish or unpublish items committed
-- together through /api/plugin/v1/releases/commit. Every row names its installation.
create table releases (
  id uuid primary key,
  installation_id text not null references installations (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 80),
  state text not null check (
    state in ('draft', 'scheduled', 'running', 'done', 'failed', 'unknown', 'cancelled')
  ),
  local_datetime text,
  timezone text,
  fold text check (fold in ('earlier', 'later')),
  due_at timestamptz,
  blocked_at timestamptz,
  attempt integer not null default 0,
  -- Counts item additions and removals, so a run refuses `release_changed` when the set moved
  -- during its readiness checks.
  items_revision integer not null default 0,
  -- Whose authority runs the release: the person who scheduled it or pressed Run now.
  delegation_id text,
  requester_email text,
  -- The command of the current attempt and its key, kept so an unknown outcome is recovered
  -- by sending exactly the same request again.
  command jsonb,
  command_key text,
  receipt jsonb,
  last_code text,
  last_message text,
  created_by_email text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index releases_by_installation on releases (installation_id, created_at desc);
create index releases_due on releases (installation_id, state, due_at);

create table release_items (
  id uuid primary key,
  release_id uuid not null references releases (id) on delete cascade,
  installation_id text not null,
  instance_id text not null,
  group_id text not null,
  model_id text not null,
  title text not null,
  -- '' for the whole translation group
  locale text not null default '',
  kind text not null check (kind in ('publish', 'unpublish')),
  target_state text not null,
  version_mode text not null check (version_mode in ('ordinary', 'future')),
  frozen_version_id text,
  status text not null check (status in ('pending', 'done', 'failed', 'cancelled')),
  attempt integer not null default 0,
  published_version_id text,
  last_code text,
  position integer not null,
  added_by_email text not null,
  created_at timestamptz not null
);
create index release_items_by_release on release_items (release_id, position);
