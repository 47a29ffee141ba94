-- A project's remembered tabs are kept under the settings key `open_tabs.<project id>` (it was
-- `session_tabs.<project id>`, the name of the command that reads them). Same value, new key.
UPDATE settings
SET key = 'open_tabs.' || substr(key, length('session_tabs.') + 1)
WHERE key LIKE 'session\_tabs.%' ESCAPE '\';
