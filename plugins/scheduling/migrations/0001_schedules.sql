-- The scheduling plugin's own tables (spec 1 part 2.10). Every row names its installation.
create table installations (
  id text primary key,
  site_id text not null,
  service_url text not null,
  -- base64 of a 12-byte IV followed by the AES-GCM ciphertext of the token (TOKEN_KEY)
  token_sealed text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

create table schedules (
  id uuid primary key,
  installation_id text not null references installations (id) on delete cascade,
  instance_id text not null,
  group_id text not null,
  model_id text not null,
  title text not null,
  kind text not null check (kind in ('publish', 'unpublish')),
  target_state text not null,
  pinned_version_id text,
  expected_workflow_revision integer not null,
  -- '' for the whole translation group
  locale text not null default '',
  local_datetime text not null,
  timezone text not null,
  fold text not null check (fold in ('earlier', 'later')),
  due_at timestamptz not null,
  status text not null check (
    status in ('pending', 'retrying', 'running', 'completed', 'refused', 'cancelled', 'superseded')
  ),
  attempts integer not null default 0,
  last_code text,
  last_message text,
  next_attempt_at timestamptz,
  revision integer not null,
  delegation_id text not null,
  requester_email text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);

-- At most one live schedule per installation, item, kind and language; the whole-group
-- against one-language conflict is checked under an advisory lock when a schedule is made.
create unique index schedules_one_live on schedules (installation_id, group_id, kind, locale)
  where status in ('pending', 'retrying', 'running');
create index schedules_due on schedules (installation_id, status, next_attempt_at);
create index schedules_by_group on schedules (installation_id, group_id);

create table schedule_attempts (
  schedule_id uuid not null references schedules (id) on delete cascade,
  installation_id text not null,
  attempt integer not null,
  code text not null,
  http_status integer,
  at timestamptz not null,
  primary key (schedule_id, attempt)
);
