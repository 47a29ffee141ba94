-- What a user message carries beyond its text (mentioned files and folders, images), as a JSON
-- array of tagged attachments; NULL when it carries nothing. Set-aside branches keep them too.
ALTER TABLE messages ADD COLUMN attachments TEXT;
ALTER TABLE branch_messages ADD COLUMN attachments TEXT;

-- Whether a saved provider's model accepts images; NULL follows its preset or kind of server.
ALTER TABLE providers ADD COLUMN images INTEGER CHECK (images IS NULL OR images IN (0, 1));
