package modules_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/lorekeep/lorekeep/shared/modules/spec"
)

var update = flag.Bool("update", false, "rewrite the modules' OpenAPI document from their declarations")

// The modules' part of the OpenAPI document is generated from their declarations: this test
// fails when it is not what they generate (go test ./shared/modules -run OpenAPI -update
// rewrites it).
func TestModulesOpenAPIIsTheDeclarations(t *testing.T) {
	var b bytes.Buffer
	if err := openapi.Execute(&b, spec.All); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "apidoc", "openapi", "70-modules.yaml")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("%s is not what the declarations generate (%v): run go test ./shared/modules -run OpenAPI -update", path, err)
	}
}

var openapi = template.Must(template.New("openapi").Funcs(template.FuncMap{
	"title":  func(s string) string { return strings.ToUpper(s[:1]) + s[1:] },
	"isText": func(k spec.FieldKind) bool { return k == spec.Text },
	"isDate": func(k spec.FieldKind) bool { return k == spec.Date },
	"isFlag": func(k spec.FieldKind) bool { return k == spec.Flag },
}).Parse(`{{define "fields"}}{{range .}}
        {{.Name}}: {{if isText .Kind}}{type: ["string", "null"], maxLength: {{.Max}}}{{else if isDate .Kind}}{type: ["string", "null"], format: date}{{else}}{type: boolean}{{end}}
{{- end}}{{end -}}
# Kanka's modules served as declarations (package modules; generated from shared/modules/spec by
# TestModulesOpenAPIIsTheDeclarations: do not edit by hand). The entities function serves them.
x-anchors:
  read-errors: &read-errors
    "401": {$ref: '#/components/responses/Unauthenticated'}
    "404": {$ref: '#/components/responses/NotFound'}
    "413": {$ref: '#/components/responses/TooLarge'}
    "422": {$ref: '#/components/responses/Invalid'}
    "429": {$ref: '#/components/responses/RateLimited'}
    "503": {$ref: '#/components/responses/Unavailable'}
  write-errors: &write-errors
    "401": {$ref: '#/components/responses/Unauthenticated'}
    "403": {$ref: '#/components/responses/Forbidden'}
    "404": {$ref: '#/components/responses/NotFound'}
    "409": {$ref: '#/components/responses/Conflict'}
    "413": {$ref: '#/components/responses/TooLarge'}
    "415": {$ref: '#/components/responses/UnsupportedMedia'}
    "422": {$ref: '#/components/responses/Invalid'}
    "429": {$ref: '#/components/responses/RateLimited'}
    "503": {$ref: '#/components/responses/Unavailable'}
tags:
  - name: Modules
    description: "Kanka's entity modules served as declarations: {{range $i, $m := .}}{{if $i}}, {{end}}{{$m.Path}}{{end}}. Each owns an entity like a location; the nested ones nest under a parent of their module, written as the current API's parent_id (the parent's entity id) or the 2025 API's <module>_id (its module id); modules with category statuses take status_id or the 2025 API's booleans (is_dead...)."
paths:
  /api/1.0/campaigns/{campaign_id}/category_statuses:
    parameters:
      - $ref: '#/components/parameters/campaign_id'
    get:
      operationId: listCategoryStatuses
      tags: [Modules]
      summary: "Kanka's default category statuses of every module (not paged)"
      responses:
        <<: *read-errors
        "200":
          description: The statuses, by id.
          content:
            application/json:
              schema:
                type: object
                required: [data]
                properties:
                  data:
                    type: array
                    items:
                      type: object
                      additionalProperties: false
                      required: [id, key, is_default, category_id]
                      properties:
                        id: {type: integer}
                        key: {type: string}
                        is_default: {type: boolean}
                        category_id: {type: integer, description: The module's entity type id.}
{{- range .}}{{$M := title .Module.Code}}{{$D := .}}
  /api/1.0/campaigns/{campaign_id}{{.Path}}:
    parameters:
      - $ref: '#/components/parameters/campaign_id'
    get:
      operationId: list{{$M}}Records
      tags: [Modules]
      summary: List {{.Module.Plural}}
      parameters:
        - $ref: '#/components/parameters/page'
        - $ref: '#/components/parameters/limit'
        - $ref: '#/components/parameters/per_page'
        - $ref: '#/components/parameters/cursor'
        - $ref: '#/components/parameters/lastSync'
        - $ref: '#/components/parameters/deleted'
        - $ref: '#/components/parameters/name'
        - $ref: '#/components/parameters/type'
        - $ref: '#/components/parameters/is_private'
        - $ref: '#/components/parameters/tags'
        - $ref: '#/components/parameters/tags_option'
        - $ref: '#/components/parameters/created_by'
        - $ref: '#/components/parameters/updated_by'
        - $ref: '#/components/parameters/fields'
        - $ref: '#/components/parameters/related'
{{- range .Fields}}{{if not (isFlag .Kind)}}
        - {name: {{.Name}}, in: query, schema: {type: string}, description: "Kanka's term language on the field, as name's (case-insensitive)."}
{{- end}}{{end}}
{{- if .Statuses}}
        - {name: status_id, in: query, schema: {type: integer}, description: Records of this status.}
{{- range .LegacyBooleans}}
        - {name: {{.}}, in: query, schema: {type: string, enum: ["1", "0", "true", "false"]}, description: "The 2025 API's status filter: 1, the status it stands for; 0, any other or none."}
{{- end}}
{{- end}}
{{- if .Module.Nested}}
        - {name: {{.LegacyParent}}, in: query, schema: {type: integer}, description: "Children of this {{.Module.Code}} (its id); a parent the caller may not see matches nothing."}
{{- end}}
{{- range .Refs}}{{if .Membership}}{{else if .One}}
        - {name: {{.Name}}, in: query, schema: {type: integer}, description: "Records whose {{.Name}} is this {{if .Target}}{{.Target}} id{{else}}entity id{{end}}."}
{{- if .Legacy}}
        - {name: {{.Legacy}}, in: query, schema: {type: integer}, description: "The 2025 API's filter: records whose {{.Name}} is this {{.LegacyTarget}} id."}
{{- end}}
{{- else}}
        - {name: "{{.Name}}[]", in: query, schema: {type: array, items: {type: integer}}, style: form, explode: true, description: "Records whose {{.Name}} hold any of these {{if .Target}}{{.Target}} ids{{else}}entity ids{{end}}."}
{{- if .Legacy}}
        - {name: {{.Legacy}}, in: query, schema: {type: integer}, description: "The 2025 API's filter: records whose {{.Name}} hold this {{if .LegacyTarget}}{{.LegacyTarget}}{{else}}{{.Target}}{{end}} id."}
{{- end}}{{end}}{{end}}
      responses:
        <<: *read-errors
        "200":
          description: A page of {{.Module.Plural}}.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/{{$M}}List'}
    post:
      operationId: create{{$M}}
      parameters:
        - $ref: '#/components/parameters/Idempotency-Key'
      tags: [Modules]
      summary: Create a {{.Module.Code}}
      requestBody: {$ref: '#/components/requestBodies/{{$M}}Write'}
      responses:
        <<: *write-errors
        "200": {$ref: '#/components/responses/{{$M}}'}
  /api/1.0/campaigns/{campaign_id}{{.Path}}/{id}:
    parameters:
      - $ref: '#/components/parameters/campaign_id'
      - $ref: '#/components/parameters/id'
    get:
      operationId: get{{$M}}
      tags: [Modules]
      summary: Get a {{.Module.Code}}
      parameters:
        - $ref: '#/components/parameters/fields'
        - $ref: '#/components/parameters/related'
      responses:
        <<: *read-errors
        "200": {$ref: '#/components/responses/{{$M}}'}
    put:
      operationId: replace{{$M}}
      parameters:
        - $ref: '#/components/parameters/Idempotency-Key'
      tags: [Modules]
      summary: Update a {{.Module.Code}} (PUT)
      description: Same body as create; fields left out keep their values.
      requestBody: {$ref: '#/components/requestBodies/{{$M}}Write'}
      responses:
        <<: *write-errors
        "200": {$ref: '#/components/responses/{{$M}}'}
    patch:
      operationId: update{{$M}}
      parameters:
        - $ref: '#/components/parameters/Idempotency-Key'
      tags: [Modules]
      summary: Update a {{.Module.Code}}
      description: Fields left out keep their values.
      requestBody: {$ref: '#/components/requestBodies/{{$M}}Write'}
      responses:
        <<: *write-errors
        "200": {$ref: '#/components/responses/{{$M}}'}
    delete:
      operationId: delete{{$M}}
      parameters:
        - $ref: '#/components/parameters/Idempotency-Key'
      tags: [Modules]
      summary: Delete a {{.Module.Code}}
      description: It goes to the trash (restorable for 30 days); {{if .Module.Nested}}its children become roots (put back by a restore); {{end}}its entity's posts, events, attributes and relations stay with it.
      responses:
        <<: *write-errors
        "200": {$ref: '#/components/responses/Deleted'}
{{- range .Reverses}}{{if .Members}}
  /api/1.0/campaigns/{campaign_id}{{$D.Path}}/{id}/organisation_members:
    parameters:
      - $ref: '#/components/parameters/campaign_id'
      - $ref: '#/components/parameters/id'
    get:
      operationId: list{{$M}}Members
      tags: [Modules]
      summary: List a {{$D.Module.Code}}'s members
      description: "The members whose {{.From}} the caller may see (a private membership for admins only), by their {{.From}}'s entity id, paged."
      parameters:
        - $ref: '#/components/parameters/page'
        - $ref: '#/components/parameters/limit'
        - $ref: '#/components/parameters/per_page'
      responses:
        <<: *read-errors
        "200":
          description: A page of members.
          content:
            application/json:
              schema:
                type: object
                required: [data, links, meta, sync]
                properties:
                  data: {type: array, items: {$ref: '#/components/schemas/OrganisationMember'}}
                  links: {$ref: '#/components/schemas/Links'}
                  meta: {$ref: '#/components/schemas/Meta'}
                  sync: {type: string}
    post:
      operationId: create{{$M}}Member
      parameters:
        - $ref: '#/components/parameters/Idempotency-Key'
      tags: [Modules]
      summary: Add a member to a {{$D.Module.Code}}
      requestBody: {$ref: '#/components/requestBodies/OrganisationMemberWrite'}
      responses:
        <<: *write-errors
        "200": {$ref: '#/components/responses/OrganisationMember'}
  /api/1.0/campaigns/{campaign_id}{{$D.Path}}/{id}/organisation_members/{member}:
    parameters:
      - $ref: '#/components/parameters/campaign_id'
      - $ref: '#/components/parameters/id'
      - {name: member, in: path, required: true, schema: {type: integer}, description: "The member's id: its {{.From}}'s entity id."}
    get:
      operationId: get{{$M}}Member
      tags: [Modules]
      summary: Get a member
      responses:
        <<: *read-errors
        "200": {$ref: '#/components/responses/OrganisationMember'}
    put:
      operationId: replace{{$M}}Member
      parameters:
        - $ref: '#/components/parameters/Idempotency-Key'
      tags: [Modules]
      summary: Update a member (PUT)
      requestBody: {$ref: '#/components/requestBodies/OrganisationMemberWrite'}
      responses:
        <<: *write-errors
        "200": {$ref: '#/components/responses/OrganisationMember'}
    patch:
      operationId: update{{$M}}Member
      parameters:
        - $ref: '#/components/parameters/Idempotency-Key'
      tags: [Modules]
      summary: Update a member
      requestBody: {$ref: '#/components/requestBodies/OrganisationMemberWrite'}
      responses:
        <<: *write-errors
        "200": {$ref: '#/components/responses/OrganisationMember'}
    delete:
      operationId: delete{{$M}}Member
      parameters:
        - $ref: '#/components/parameters/Idempotency-Key'
      tags: [Modules]
      summary: Remove a member
      description: The members it was the boss of keep no boss.
      responses:
        <<: *write-errors
        "200": {$ref: '#/components/responses/Deleted'}
{{- end}}{{end}}
{{- end}}
components:
  schemas:
    OrganisationMember:
      type: object
      additionalProperties: false
      required: [id, organisation_id, character_id, role, pin_id, status_id, parent_id, is_private, created_at, updated_at, created_by, updated_by]
      properties:
        id: {type: integer, description: "The member's id: its character's entity id."}
        organisation_id: {type: integer}
        character_id: {type: integer}
        role: {type: ["string", "null"], maxLength: 45}
        pin_id: {type: ["integer", "null"], enum: [0, 1, 2, 3, null], description: "0 none, 1 pinned on the character, 2 on the organisation, 3 both."}
        status_id: {type: integer, enum: [0, 1, 2], description: "0 active, 1 inactive, 2 unknown."}
        parent_id: {type: ["integer", "null"], description: "Another member's id (the boss)."}
        is_private: {type: boolean}
        created_at: {type: string}
        updated_at: {type: string}
        created_by: {type: "null"}
        updated_by: {type: "null"}
    OrganisationMemberInput:
      type: object
      properties:
        character_id: {type: integer, description: "Required on create: a character the caller may see, not yet a member; cannot change."}
        role: {type: ["string", "null"], maxLength: 45}
        pin_id: {type: ["integer", "null"], minimum: 0, maximum: 3}
        status_id: {type: ["integer", "null"], minimum: 0, maximum: 2}
        parent_id: {type: ["integer", "null"], description: Another member of the organisation.}
        is_private: {type: boolean, description: Admins only make a membership private.}
{{- range .}}{{$M := title .Module.Code}}{{$D := .}}
    {{$M}}:
      type: object
      additionalProperties: false
      properties:
        id: {type: integer}
        name: {type: string}
        entry: {type: string, description: Sanitised HTML.}
        entry_parsed: {type: ["string", "null"], description: 'The entry with mentions turned into links; null when the entry is empty.'}
        image: {type: string}
        image_full: {type: string}
        image_thumb: {type: string}
        has_custom_image: {type: boolean}
        is_private: {type: boolean, description: Only admins see private records.}
        entity_id: {type: integer}
        tags: {$ref: '#/components/schemas/Tags'}
        type: {type: string}
        entity_image_uuid: {type: ["string", "null"]}
        entity_header_uuid: {type: ["string", "null"]}
        created_at: {$ref: '#/components/schemas/Timestamp'}
        created_by: {type: integer}
        updated_at: {$ref: '#/components/schemas/Timestamp'}
        updated_by: {type: integer}
{{- template "fields" .Fields}}
{{- if .Module.Nested}}
        {{.LegacyParent}}: {type: ["integer", "null"], description: "The parent {{.Module.Code}}'s id (the 2025 API's parent field); null for a root, and for a non-admin when the parent is private."}
{{- end}}
{{- range .Refs}}{{if .Membership}}
        {{.Name}}:
          type: object
          description: "With related: the memberships the reader may see, as Kanka's {data: [...]}."
          required: [data]
          properties:
            data: {type: array, items: {$ref: '#/components/schemas/OrganisationMember'}}
{{- else if .One}}
        {{.Name}}: {type: ["integer", "null"], description: "{{if .Target}}A {{.Target}}'s id{{else}}An entity id{{end}}; null when none the reader may see."}
{{- if .Legacy}}
        {{.Legacy}}: {type: ["integer", "null"], description: "The 2025 API's field: the {{.LegacyTarget}} id of {{.Name}} when it is a {{.LegacyTarget}}, or null."}
{{- end}}
{{- else}}
        {{.Name}}: {type: array, items: {type: integer}, description: "{{if .Target}}The {{.Target}} ids{{else}}The entity ids{{end}} the reader may see, in order (never those in the trash; those of private records for admins only)."}
{{- if .Private}}
        private_{{.Name}}: {type: array, items: {type: integer}, description: "The ones of {{.Name}} naming private records (admins only; empty for others)."}
{{- end}}
{{- if .Legacy}}
        {{.Legacy}}: {type: ["integer", "null"], description: "The 2025 API's field: the first of {{.Name}}{{if .LegacyTarget}} that is a {{.LegacyTarget}} (its {{.LegacyTarget}} id){{end}}, or null."}
{{- end}}{{end}}{{end}}
{{- range .Reverses}}{{if .Members}}
        {{.Name}}: {type: array, items: {$ref: '#/components/schemas/OrganisationMember'}, description: "The members whose {{.From}} the reader may see (a private membership for admins only), at most 1,000: organisation_members pages them all."}
{{- else}}
        {{.Name}}: {type: array, items: {type: integer}, description: "The ids of the {{.From}} records naming this one by their {{.Field}} that the reader may see (at most 1,000)."}
{{- end}}{{end}}
{{- if .Traits}}
        traits:
          type: array
          description: "The character's traits, appearance (section 1) first, each section in its order; personality traits only to admins and the character's creator unless is_personality_visible."
          items:
            type: object
            additionalProperties: false
            required: [id, name, entry, entry_parsed, section_id, section, default_order]
            properties:
              id: {type: integer}
              name: {type: string}
              entry: {type: string}
              entry_parsed: {type: ["string", "null"]}
              section_id: {type: integer, enum: [1, 2]}
              section: {type: string, enum: [appearance, personality]}
              default_order: {type: integer}
{{- end}}
{{- if .Statuses}}
        status_id: {type: ["integer", "null"], description: "The category status (GET category_statuses): {{range $i, $s := .Statuses}}{{if $i}}, {{end}}{{$s.ID}} {{$s.Key}}{{end}}."}
        status:
          type: ["object", "null"]
          additionalProperties: false
          properties:
            id: {type: integer}
            key: {type: string}
            is_custom: {type: boolean}
{{- range .LegacyBooleans}}
        {{.}}: {type: boolean, description: "The 2025 API's status flag: true when the status stands for it."}
{{- end}}
{{- end}}
        attributes: {type: array, items: {$ref: '#/components/schemas/Attribute'}, description: 'With related: the entity''s attributes the caller may see.'}
        posts: {type: array, items: {type: object}, description: 'With related, the entity''s posts the caller may see.'}
        entity_notes: {type: array, items: {type: object}, description: 'With related, the same notes as the entity_notes route answers them.'}
        entity_events: {type: array, items: {type: object}, description: 'With related, the entity''s events the caller may see.'}
        reminders: {type: array, items: {type: object}, description: 'With related, the same events as reminders.'}
        relations: {type: array, items: {$ref: '#/components/schemas/Relation'}, description: 'With related: the relations the entity owns that the caller may see.'}
        inventory: {type: array, items: {$ref: '#/components/schemas/InventoryLine'}, description: 'With related: the inventory lines the caller may see.'}
        entity_abilities: {type: array, items: {$ref: '#/components/schemas/EntityAbility'}, description: 'With related: the entity abilities the caller may see.'}
        entity_assets: {type: array, items: {type: object}, description: 'With related: always empty.'}
    {{$M}}Input:
      type: object
      properties:
        name: {type: string, maxLength: 191, description: Required on create.}
        entry: {type: string, description: HTML; sanitised on write.}
        type: {type: string, maxLength: 191}
        tags: {type: array, items: {type: integer}}
        is_private: {type: boolean, description: Admins only.}
        image_url: {type: string}
        entity_image_uuid: {type: string}
        entity_header_uuid: {type: string}
{{- template "fields" .Fields}}
{{- if .Module.Nested}}
        parent_id: {type: ["integer", "null"], description: "The parent's entity id: an entity of a {{.Module.Code}} the caller may see, not this one or one of its descendants, at most 64 levels deep; null detaches."}
        {{.LegacyParent}}: {type: ["integer", "null"], description: "The 2025 API's parent: the parent {{.Module.Code}}'s id. When both are sent, parent_id wins, unless it names the current parent while this names another."}
{{- end}}
{{- range .Refs}}{{if .Membership}}{{else if .One}}
        {{.Name}}: {type: ["integer", "null"], description: "{{if .Target}}A {{.Target}}'s id{{else}}An entity id (of any module){{end}} the writer may see; null clears."}
{{- if .Legacy}}
        {{.Legacy}}: {type: ["integer", "null"], description: "The 2025 API's field, read when {{.Name}} is not sent: a {{.LegacyTarget}} id; null clears."}
{{- end}}
{{- else}}
        {{.Name}}: {type: ["array", "null"], maxItems: 100, items: {type: integer}, description: "{{if .Target}}{{.Target}} ids{{else}}Entity ids (of any module){{end}} of this campaign that the writer may see (a 422 names the index of one that is not); replaces the list (those the writer cannot see, private or in the trash, are kept); null or [] clears."}
{{- if .Legacy}}
        {{.Legacy}}: {type: ["integer", "null"], description: "The 2025 API's field, read when {{.Name}} is not sent: {{if .LegacyTarget}}a {{.LegacyTarget}} id, {{end}}replacing the first of {{.Name}}{{if .LegacyTarget}} that is a {{.LegacyTarget}}{{end}} (or added first); null removes it."}
{{- end}}{{end}}{{end}}
{{- if .Traits}}
        appearance_name: {description: "Kanka's trait names of the appearance section: an array (new traits, in order) or an object keyed by the ids of the traits kept; empty names are skipped; left out, the section keeps its traits. At most 100 traits of 32 KiB in all, names of 191 characters, entries of 1,000.", type: [array, object, "null"]}
        appearance_entry: {description: "The entries of appearance_name's traits, by the same keys.", type: [array, object, "null"]}
        personality_name: {description: "As appearance_name, for the personality section.", type: [array, object, "null"]}
        personality_entry: {description: "The entries of personality_name's traits, by the same keys.", type: [array, object, "null"]}
{{- end}}
{{- if .Statuses}}
        status_id: {type: ["integer", "null"], description: "A category status of the module, null for none; wins over the booleans."}
{{- range .LegacyBooleans}}
        {{.}}: {type: boolean, description: "The 2025 API's flag: true sets the status it stands for; false clears it when it is the record's."}
{{- end}}
{{- end}}
    {{$M}}List:
      type: object
      required: [data, links, meta, sync]
      additionalProperties: false
      properties:
        data: {type: array, items: {oneOf: [{$ref: '#/components/schemas/{{$M}}'}, {$ref: '#/components/schemas/Gone'}]}}
        links: {$ref: '#/components/schemas/Links'}
        meta: {$ref: '#/components/schemas/Meta'}
        sync: {$ref: '#/components/schemas/Timestamp'}
{{- end}}
  requestBodies:
    OrganisationMemberWrite:
      required: true
      content:
        application/json:
          schema: {$ref: '#/components/schemas/OrganisationMemberInput'}
        application/x-www-form-urlencoded:
          schema: {$ref: '#/components/schemas/OrganisationMemberInput'}
{{- range .}}{{$M := title .Module.Code}}
    {{$M}}Write:
      required: true
      content:
        application/json:
          schema: {$ref: '#/components/schemas/{{$M}}Input'}
        application/x-www-form-urlencoded:
          schema: {$ref: '#/components/schemas/{{$M}}Input'}
{{- end}}
  responses:
    OrganisationMember:
      description: The member.
      content:
        application/json:
          schema:
            type: object
            required: [data]
            properties:
              data: {$ref: '#/components/schemas/OrganisationMember'}
{{- range .}}{{$M := title .Module.Code}}
    {{$M}}:
      description: The {{.Module.Code}}.
      content:
        application/json:
          schema:
            type: object
            required: [data]
            properties:
              data: {$ref: '#/components/schemas/{{$M}}'}
{{- end}}
`))
