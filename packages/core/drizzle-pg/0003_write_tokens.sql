CREATE TABLE "write_tokens" (
	"token" uuid PRIMARY KEY NOT NULL
);
