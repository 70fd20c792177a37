// The service's SQLite storage: one file (WAL), created and migrated on open.
import Database from 'better-sqlite3'

export type Db = Database.Database

/** Each entry moves the schema one version forward; never edit a shipped one. */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE seq (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
  -- Every resource is a row of one kind: indexed columns for lists, the record as JSON.
  CREATE TABLE entities (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    name TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    external_id TEXT,
    parent TEXT,
    position INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (kind, id)
  );
  CREATE INDEX entities_by_seq ON entities (kind, seq);
  CREATE INDEX entities_by_updated ON entities (kind, updated_at);
  CREATE INDEX entities_by_external ON entities (kind, external_id);
  CREATE INDEX entities_by_parent ON entities (kind, parent);
  CREATE TABLE relations (kind TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (kind, a, b));
  CREATE INDEX relations_by_b ON relations (kind, b);
  CREATE TABLE tokens (
    secret TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    member_id TEXT NOT NULL,
    description TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_used_at TEXT
  );
  CREATE TABLE list_snapshots (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, spec TEXT NOT NULL, ids TEXT NOT NULL);
  CREATE TABLE file_blobs (id TEXT PRIMARY KEY, content_type TEXT NOT NULL, size INTEGER NOT NULL, bytes BLOB NOT NULL);
  `,
  // Lookups by parent, external id or name come back in row order: index the order too,
  // or SQLite walks every row of the kind.
  `
  DROP INDEX entities_by_parent;
  DROP INDEX entities_by_external;
  CREATE INDEX entities_by_parent ON entities (kind, parent, seq);
  CREATE INDEX entities_by_external ON entities (kind, external_id, seq);
  CREATE INDEX entities_by_name ON entities (kind, name, seq);
  `,
  // Lists by updated_at break ties by seq: index the tie-break too, or SQLite sorts every row of
  // the kind in a temporary b-tree for each first page.
  `
  DROP INDEX entities_by_updated;
  CREATE INDEX entities_by_updated ON entities (kind, updated_at, seq);
  `,
  // A list's first page reads the id of every live row of a kind in row order (10,000 epics):
  // from this index alone, without visiting each row for its archived flag and id.
  `
  CREATE INDEX entities_by_archived ON entities (kind, archived, seq, id);
  `,
  // A snapshot's ordered ids are kept once per distinct list (list_ids, by digest) however many
  // walks start on it; each walk's snapshot is a small row of its own. Snapshots taken before
  // keep their ids under their own id as the digest.
  `
  CREATE TABLE list_ids (digest TEXT PRIMARY KEY, ids TEXT NOT NULL);
  CREATE TABLE snapshots (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, spec TEXT NOT NULL, digest TEXT NOT NULL) WITHOUT ROWID;
  INSERT INTO list_ids (digest, ids) SELECT id, ids FROM list_snapshots;
  INSERT INTO snapshots (id, created_at, spec, digest) SELECT id, created_at, spec, id FROM list_snapshots;
  DROP TABLE list_snapshots;
  ALTER TABLE snapshots RENAME TO list_snapshots;
  `,
  // Each first page drops the snapshots older than their time to live: by this index, not by a
  // walk of every snapshot taken in the last six hours (thousands on a busy service).
  `
  CREATE INDEX list_snapshots_by_time ON list_snapshots (created_at);
  `,
]

export function openDatabase(file: string): Db {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 5000')
  migrate(db)
  return db
}

function migrate(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v])
      db.pragma(`user_version = ${v + 1}`)
    })()
  }
}
