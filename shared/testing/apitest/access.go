package apitest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// AccessRoles are the six callers every owner kind's access matrix checks, in the order of an
// AccessCheck's Want: an admin, a member, a viewer and a non-member of the private campaign, then
// a non-member and a member of the public campaign.
var AccessRoles = [6]string{
	"admin of private campaign", "member of private campaign", "viewer of private campaign",
	"non-member of private campaign", "non-member of public campaign", "member of public campaign",
}

func (e *Env) accessRole(i int) (cid int64, token string) {
	switch i {
	case 0:
		return e.Campaign, e.Admin
	case 1:
		return e.Campaign, e.Member
	case 2:
		return e.Campaign, e.Viewer
	case 3:
		return e.Campaign, e.Outsider
	case 4:
		return e.PublicCampaign, e.Outsider
	}
	return e.PublicCampaign, e.Member
}

// AccessCheck is one request of an access matrix and the status each of AccessRoles gets.
type AccessCheck struct {
	What   string
	Method string
	// On is the record the request names: "open" (public), "hidden" (private), or "" for the
	// collection itself.
	On     string
	Suffix string // after the record's path, e.g. "/days"
	Body   map[string]any
	Want   [6]int
}

// OwnerAccessChecks are the reads and writes every owner kind answers alike: private records are
// admins' only (404 to others), viewers and outsiders of a public campaign read but never write,
// outsiders of a private campaign see nothing.
var OwnerAccessChecks = []AccessCheck{
	{What: "show open", Method: "GET", On: "open", Want: [6]int{200, 200, 200, 404, 200, 200}},
	{What: "show hidden", Method: "GET", On: "hidden", Want: [6]int{200, 404, 404, 404, 404, 404}},
	{What: "create", Method: "POST", Body: map[string]any{"name": "New"}, Want: [6]int{200, 200, 403, 404, 403, 200}},
	{What: "update open", Method: "PATCH", On: "open", Body: map[string]any{"name": "Renamed"}, Want: [6]int{200, 200, 403, 404, 403, 200}},
	{What: "update hidden", Method: "PUT", On: "hidden", Body: map[string]any{"name": "Renamed"}, Want: [6]int{200, 404, 403, 404, 403, 404}},
}

// DeleteHidden is the last check of every matrix: the delete of the private record.
var DeleteHidden = AccessCheck{What: "delete hidden", Method: "DELETE", On: "hidden", Want: [6]int{200, 404, 403, 404, 403, 404}}

// AccessMatrix describes an owner kind for OwnerAccessMatrix.
type AccessMatrix struct {
	Collection string // "/locations"
	// NewBody is the body of the "create" check (nil: {"name": "New"}), for kinds that
	// require more.
	NewBody map[string]any
	// Create stores a record through the API as the campaign's admin and answers its id; body
	// holds name, type and is_private, to which the kind adds what it requires.
	Create func(t *testing.T, cid int64, body map[string]any) int64
	// Checks run after OwnerAccessChecks and before DeleteHidden (a kind's own routes).
	Checks []AccessCheck
	// Unchanged says why the hidden record is not as created ("" when it is), or answers the
	// store's error (apperr.ErrNotFound once deleted). Nil: StoredName's name is still "Hidden".
	Unchanged func(ctx context.Context, cid, hidden int64) (string, error)
	// StoredName reads a record's name from the store (for the default Unchanged).
	StoredName func(ctx context.Context, cid, id int64) (string, error)
	// After runs at the end of each role's case (an audit, the open record's state).
	After func(t *testing.T, role int, cid, open, hidden int64)
}

// OwnerAccessMatrix checks every role of AccessRoles against a public and a private record of an
// owner kind: the list (which counts only what the role may see, total included), the checks, and
// that a refused write leaves the private record as it was.
func (e *Env) OwnerAccessMatrix(t *testing.T, m AccessMatrix) {
	t.Helper()
	listWant := [6]int{2, 1, 1, -1, 1, 1}
	if m.Unchanged == nil {
		m.Unchanged = func(ctx context.Context, cid, id int64) (string, error) {
			name, err := m.StoredName(ctx, cid, id)
			if err == nil && name != "Hidden" {
				return "renamed " + name, nil
			}
			return "", err
		}
	}
	checks := append(append(append([]AccessCheck{}, OwnerAccessChecks...), m.Checks...), DeleteHidden)
	for i := range checks {
		if checks[i].What == "create" && m.NewBody != nil {
			checks[i].Body = m.NewBody
		}
	}
	for i, name := range AccessRoles {
		t.Run(name, func(t *testing.T) {
			cid, tok := e.accessRole(i)
			// Each case counts only its own two records, typed with a name of its own.
			typ := fmt.Sprintf("case%d", i)
			open := m.Create(t, cid, map[string]any{"name": "Open", "type": typ})
			hidden := m.Create(t, cid, map[string]any{"name": "Hidden", "type": typ, "is_private": true})
			list := e.Do("GET", Path(cid, m.Collection+"?type="+typ), tok, nil)
			if want := listWant[i]; want < 0 {
				if list.Status != 404 {
					t.Fatalf("list: got %d, want 404", list.Status)
				}
			} else if meta, _ := list.Body["meta"].(map[string]any); list.Status != 200 || len(list.List()) != want || meta["total"] != float64(want) {
				t.Fatalf("list: got %d %s, want %d items and total", list.Status, list.Raw, want)
			}
			for _, c := range checks {
				path := Path(cid, m.Collection)
				switch c.On {
				case "open":
					path += fmt.Sprintf("/%d", open)
				case "hidden":
					path += fmt.Sprintf("/%d", hidden)
				}
				var body any // no body at all when the check has none (not JSON null)
				if c.Body != nil {
					body = c.Body
				}
				if got := e.Do(c.Method, path+c.Suffix, tok, body); got.Status != c.Want[i] {
					t.Errorf("%s: got %d %s, want %d", c.What, got.Status, got.Raw, c.Want[i])
				}
			}
			why, err := m.Unchanged(context.Background(), cid, hidden)
			if DeleteHidden.Want[i] != 200 {
				if err != nil || why != "" {
					t.Errorf("hidden record changed by a refused write: %s %v", why, err)
				}
			} else if !errors.Is(err, apperr.ErrNotFound) {
				t.Errorf("deleted record still stored: %v", err)
			}
			if m.After != nil {
				m.After(t, i, cid, open, hidden)
			}
		})
	}
}
