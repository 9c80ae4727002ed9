package mcp

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// GuideURI is the resource that teaches an assistant the modules and the mention syntax.
const GuideURI = "lorekeep://guide"

func (s *Server) addResources() {
	s.server.AddResource(&mcp.Resource{URI: GuideURI, Name: "guide", Title: "How to write Lorekeep records",
		Description: "The modules, the mention syntax and the entry format: read it before writing records.", MIMEType: "text/markdown"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: GuideURI, MIMEType: "text/markdown", Text: guide()}}}, nil
		})
}

func guide() string {
	var b strings.Builder
	b.WriteString(`# Lorekeep for assistants

## Modules
Every record belongs to a module, and every record has an entity: its id across modules
(entity_id), which mentions, posts, attributes, relations and tags hang from. Name a module by
its collection or its entity type:

| module | entity type |
| --- | --- |
`)
	for _, m := range domain.Modules {
		b.WriteString("| " + strings.ToLower(m.Plural) + " | " + m.Code + " |\n")
	}
	b.WriteString(`
Records whose module nests (locations, tags, maps...) name their parent with the module's own
parent field (location_id, parent_id...); list_records filters by it.

## Mentions
In an entry, ` + "`[character:12]`" + ` mentions the entity 12 of type character, and
` + "`[character:12|the old king]`" + ` shows it as "the old king". The number is the entity id
(entity_id), the word its entity type. Lorekeep keeps them as written and renders them as links
in entry_parsed. Find an entity id with search or list_records.

## Entries
Entries are Markdown by default in every tool (entry_format: "html" for Kanka's HTML). Markdown
is turned into HTML and sanitised exactly as an HTML entry is: scripts, styles and unknown
attributes are dropped. The REST API does the same with ?entry_format=markdown.

## Writing safely
- Writes need a member's or an admin's role; viewers read only. Private records are admins' only.
- Send an idempotency_key with every write: sending the same call again after a timeout or an
  error replays what was done and does only what was not.
- Batches take at most 100 items, each answered on its own.
- delete_records and every delete action need confirm: true: ask the user first.
- changes_since tells what changed and what was deleted since the sync of your last read.
`)
	return b.String()
}
