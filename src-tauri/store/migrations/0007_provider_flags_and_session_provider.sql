-- How a saved provider's wire differs from OpenAI's, where the user (or Gantry, on a refusal)
-- set it: NULL keeps the preset's flag, or the one its URL's kind of server suggests.
ALTER TABLE providers ADD COLUMN stream_usage     INTEGER CHECK (stream_usage IS NULL OR stream_usage IN (0, 1));
ALTER TABLE providers ADD COLUMN replay_reasoning INTEGER CHECK (replay_reasoning IS NULL OR replay_reasoning IN (0, 1));
ALTER TABLE providers ADD COLUMN text_tool_calls  INTEGER CHECK (text_tool_calls IS NULL OR text_tool_calls IN (0, 1));

-- The provider a session was switched to, with `model`; NULL: the session follows the active
-- provider (and `model` only records what it talked to).
ALTER TABLE sessions ADD COLUMN provider TEXT;
