package entities

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// MaxRecover bounds the entities one POST recover restores: each is its own transaction and
// reference cascade, so the request's cost stays bounded.
const MaxRecover = 20

// recoverySuccess is Kanka's answer to a recover (no data envelope).
const recoverySuccess = "Successfully recovered deleted entities"

// recovery is Kanka's list of the deleted entities an admin may restore (EntityResource
// shape, by entity id, paged): the trash not yet expired.
func (h handlers) recovery(r *httpapi.Request) (httpapi.Reply, error) {
	if !r.Access.IsAdmin() {
		return httpapi.Reply{}, apperr.ErrForbidden
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res, err := h.st.ListTrash(r.Context(), r.Access.CampaignID, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Page(res, page, renderer(r)), nil
}

// recover restores the entities of the body's `entities` (ids of trashed, unexpired entities
// of the campaign; at most MaxRecover), most recently deleted first (undoing the deletes in
// reverse, so a child deleted before its parent comes back under it), each in its own
// transaction and cascade: ids unchanged, updated now, children and links as they were.
func (h handlers) recover(r *httpapi.Request) (httpapi.Reply, error) {
	if !r.Access.IsAdmin() {
		return httpapi.Reply{}, apperr.ErrForbidden
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	rd := domain.NewReader(in)
	f := rd.IDs("entities", MaxRecover)
	rd.Required("entities", f.Present() && len(f.Value) > 0)
	if err := rd.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	ctx := r.Context()
	cid := r.Access.CampaignID
	found, err := h.st.GetTrashed(ctx, cid, f.Value)
	if err != nil {
		return httpapi.Reply{}, err
	}
	raw, _ := in["entities"].([]any)
	for i, v := range raw {
		if id, ok := domain.ToInt(v); ok && found[id] == nil {
			rd.Fail("entities."+strconv.Itoa(i), "The selected :attribute is invalid.")
		}
	}
	if err := rd.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	ids := slices.Clone(f.Value)
	slices.SortStableFunc(ids, func(a, b int64) int { return found[b].DeletedAt.Compare(*found[a].DeletedAt) })
	// Each restore is its own transaction and cascade: an Idempotency-Key is not recorded with
	// any of them (a retry answers 422 for what is restored already).
	ctx = domain.WithKeyedWrite(ctx, nil)
	recovered := make([]int64, 0, len(ids))
	for i, id := range ids {
		err := h.st.RestoreEntity(ctx, cid, id, r.Access.UserID)
		if err == nil {
			recovered = append(recovered, id)
			continue
		}
		if len(recovered) > 0 {
			// Some are restored already: an error answer would say nothing was written (a 503
			// promises it). The answer says what happened instead; the rest can be retried.
			slog.WarnContext(ctx, "recover: restored part of the entities", "campaign_id", cid,
				"recovered", recovered, "not_recovered", ids[i:], "error", err)
			return httpapi.Bare(recoverAnswer{Success: fmt.Sprintf(recoveryPartial, len(recovered), len(ids)),
				Recovered: recovered, NotRecovered: ids[i:]}), nil
		}
		if errors.Is(err, domain.ErrNotTrashed) { // purged or restored since it was read
			return httpapi.Reply{}, apperr.Invalid("entities", "The selected entities are invalid.")
		}
		return httpapi.Reply{}, err
	}
	return httpapi.Bare(recoverAnswer{Success: recoverySuccess, Recovered: recovered}), nil
}

// recoveryPartial is the success message of a recover that restored only the first of the ids
// (in restore order) before a failure: DynamoDB unavailable, or an entity purged meanwhile.
const recoveryPartial = "Recovered %d of %d deleted entities; the others were not recovered (retry them)"

// recoverAnswer is Kanka's answer (success) with Lorekeep's account of which ids were
// restored: every one, or, when a restore failed after others were written, those before it
// (recovered) and the rest (not_recovered).
type recoverAnswer struct {
	Success      string  `json:"success"`
	Recovered    []int64 `json:"recovered"`
	NotRecovered []int64 `json:"not_recovered,omitempty"`
}
