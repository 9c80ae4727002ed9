package webhooks

import (
	"encoding/json"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
)

// KankaEvent is the Kanka payload: the record described as Kanka's API names it (an entity
// with its child record), with Kanka's action names.
type KankaEvent struct {
	EventID    string      `json:"event_id"`
	Action     string      `json:"action"` // created, updated, deleted, date_changed, test
	CampaignID int64       `json:"campaign_id"`
	OccurredAt string      `json:"occurred_at"`
	Entity     KankaEntity `json:"entity"`
}

// KankaEntity names the record: `type` in Kanka's words (post for an entity note, reminder for
// an entity event).
type KankaEntity struct {
	ID        *int64  `json:"id"` // the entity
	ChildID   int64   `json:"child_id"`
	Name      string  `json:"name"`
	Type      string  `json:"type"`
	IsPrivate *bool   `json:"is_private,omitempty"`
	Tags      []int64 `json:"tags,omitempty"`
	URL       string  `json:"url,omitempty"`
}

var kankaTypes = map[string]string{"entity_note": "post", "entity_event": "reminder"}

// DiscordMessage is a Discord webhook message (content and one embed); it may mention nobody.
type DiscordMessage struct {
	Content         string         `json:"content"`
	Embeds          []DiscordEmbed `json:"embeds"`
	AllowedMentions struct {
		Parse []string `json:"parse"`
	} `json:"allowed_mentions"`
}

// DiscordEmbed is the message's card.
type DiscordEmbed struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Timestamp   string `json:"timestamp"`
	Footer      struct {
		Text string `json:"text"`
	} `json:"footer"`
}

// format renders ev (whose Lorekeep form is payload) in the webhook's format.
func format(f string, ev Event, payload []byte) []byte {
	var v any
	switch f {
	case hook.FormatKanka:
		_, action, _ := strings.Cut(ev.Event, ".")
		typ := ev.Data.Kind
		if k, ok := kankaTypes[typ]; ok {
			typ = k
		}
		ent := KankaEntity{ChildID: ev.Data.ID, Name: ev.Data.Name, Type: typ, IsPrivate: ev.Data.IsPrivate, Tags: ev.Data.Tags,
			URL: ev.Data.Path}
		if _, owner := domain.ModuleOf(ev.Data.Kind); owner && ev.Data.EntityID != nil { // a record that owns an entity
			ent.ID = ev.Data.EntityID
		}
		v = KankaEvent{EventID: ev.ID, Action: action, CampaignID: ev.CampaignID, OccurredAt: ev.OccurredAt, Entity: ent}
	case hook.FormatDiscord:
		m := DiscordMessage{Content: discordText(ev), Embeds: []DiscordEmbed{{Title: clip(ev.Data.Name, 256), Timestamp: ev.OccurredAt}}}
		m.Embeds[0].Description = clip(strings.ReplaceAll(ev.Data.Kind, "_", " ")+" · "+ev.Event, 4096)
		m.Embeds[0].Footer.Text = ev.ID
		m.AllowedMentions.Parse = []string{}
		v = m
	default:
		return payload
	}
	b, _ := json.Marshal(v)
	return b
}

func discordText(ev Event) string {
	kind := strings.ReplaceAll(ev.Data.Kind, "_", " ")
	name := "**" + strings.NewReplacer("*", "\\*", "_", "\\_", "`", "\\`", "~", "\\~", "|", "\\|").Replace(ev.Data.Name) + "**"
	_, action, _ := strings.Cut(ev.Event, ".")
	var text string
	switch action {
	case "created", "updated", "deleted":
		text = "The " + kind + " " + name + " was " + action + "."
	case "date_changed":
		text = "The date of " + name + " is now "
		if ev.Data.Date != nil {
			text += *ev.Data.Date
		}
		text += "."
	default:
		text = "Lorekeep webhook test."
	}
	return clip(text, 2000)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	for len(string(r)) > n {
		r = r[:len(r)-1]
	}
	return string(r)
}
