-- App-wide settings the user chose (the active provider, window layout, ...), as text by key.
-- Never secrets: keys live in the OS keychain.
CREATE TABLE settings (
    key        TEXT    PRIMARY KEY,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
);
