package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Idempotency-Key: a POST, PUT, PATCH or DELETE sent with the header happens at most once per
// user, campaign and key for domain.IdempotencyWindow. The first request that writes stores its
// answer with the key in the write's own transaction (the answer is rendered just before that
// transaction is sent); a repeat (same method, path and body) answers that status and body
// without writing, with Idempotent-Replayed: true; the key with another request is a 422. A
// request that fails writes nothing and stores nothing, so its repeat runs again. Two requests
// with one key at once: one writes, the other answers its stored outcome (or a 409 with
// Retry-After while it is not stored yet).

// ReplayedHeader marks an answer replayed from an Idempotency-Key's record.
const ReplayedHeader = "Idempotent-Replayed"

var errKeyFormat = domain.InvalidKey("The " + domain.IdempotencyHeader + " header must be 1 to " +
	strconv.Itoa(domain.MaxIdempotencyKey) + " visible ASCII characters, given once.")

var errKeyReused = domain.InvalidKey("The " + domain.IdempotencyHeader + " header was already used for a different request.")

// keyed reads the write request's Idempotency-Key: nil without one; the stored outcome of an
// earlier request with the key, to answer; or the KeyedWrite that the store writes with the
// request's write.
func (a *API) keyed(r *Request) (*domain.KeyedWrite, *domain.Replay, error) {
	vals := r.Header.Values(domain.IdempotencyHeader)
	if len(vals) == 0 {
		return nil, nil, nil
	}
	if len(vals) > 1 || !validKey(vals[0]) {
		return nil, nil, errKeyFormat
	}
	key := vals[0]
	// The body as decoded (DELETE ignores it).
	var body []byte
	if r.Method != http.MethodDelete {
		in, err := r.Input()
		if err != nil {
			return nil, nil, err
		}
		if body, err = json.Marshal(in); err != nil {
			return nil, nil, domain.Invalid("body", "The request body could not be read.")
		}
	}
	sum := sha256.New()
	sum.Write([]byte(r.Method + "\n" + r.URL.Path + "\n"))
	sum.Write(body)
	fp := hex.EncodeToString(sum.Sum(nil))
	replay, err := a.opts.Campaigns.Replay(r.Context(), r.Access.CampaignID, r.Access.UserID, key)
	if err != nil {
		return nil, nil, err
	}
	if replay != nil {
		if replay.Fingerprint != fp {
			return nil, nil, errKeyReused
		}
		return nil, replay, nil
	}
	return &domain.KeyedWrite{CampaignID: r.Access.CampaignID, UserID: r.Access.UserID, Key: key, Fingerprint: fp,
		Expires: r.now.Add(domain.IdempotencyWindow)}, nil, nil
}

func validKey(k string) bool {
	if len(k) < 1 || len(k) > domain.MaxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// settle answers a keyed write: what was stored with its key when the write committed (even if
// a later step failed: the client must learn that it happened), the winner's outcome when a
// concurrent request with the key won, the error otherwise. A write that sent no transaction of
// its own (finishing a pending delete) stores its key now.
func (a *API) settle(w http.ResponseWriter, r *Request, kw *domain.KeyedWrite, reply Reply, err error) {
	if body, ok := kw.Committed(); ok {
		if err != nil {
			slog.Warn("keyed write failed after it committed; answering what it stored", "err", err, "path", r.URL.Path)
		}
		writeBody(w, r.Request, http.StatusOK, body)
		return
	}
	if err == nil {
		body, eerr := reply.encode()
		if eerr != nil {
			writeError(w, r.Request, eerr)
			return
		}
		err = a.opts.Campaigns.SaveReplay(r.Context(), kw, body)
		if err == nil || !errors.Is(err, domain.ErrKeyInUse) {
			if err != nil { // the write happened: say so; a repeat will run it again, as a retry would
				slog.Warn("keyed write succeeded but its key could not be stored", "err", err, "path", r.URL.Path)
			}
			writeBody(w, r.Request, http.StatusOK, body)
			return
		}
	}
	if !errors.Is(err, domain.ErrKeyInUse) {
		writeError(w, r.Request, err)
		return
	}
	replay, rerr := a.opts.Campaigns.Replay(r.Context(), kw.CampaignID, kw.UserID, kw.Key)
	switch {
	case rerr != nil:
		writeError(w, r.Request, rerr)
	case replay == nil:
		writeError(w, r.Request, domain.ErrKeyInUse)
	case replay.Fingerprint != kw.Fingerprint:
		writeError(w, r.Request, errKeyReused)
	default:
		writeReplay(w, r.Request, replay)
	}
}

func writeReplay(w http.ResponseWriter, r *http.Request, rp *domain.Replay) {
	w.Header().Set(ReplayedHeader, "true")
	writeBody(w, r, rp.Status, rp.Body)
}

// Commit runs write, the request's one write, whose success reply answers. With an
// Idempotency-Key, reply is rendered just before write's transaction is sent, and stored with
// the key; otherwise after write.
func (r *Request) Commit(write func() error, reply func() (Reply, error)) (Reply, error) {
	kw := domain.KeyedWriteOf(r.Context())
	if kw == nil {
		if err := write(); err != nil {
			return Reply{}, err
		}
		return reply()
	}
	kw.SetOutcome(func() ([]byte, error) {
		rp, err := reply()
		if err != nil {
			return nil, err
		}
		return rp.encode()
	})
	defer kw.SetOutcome(nil)
	if err := write(); err != nil {
		return Reply{}, err
	}
	if body, ok := kw.Committed(); ok {
		return Reply{raw: body}, nil
	}
	return reply()
}
