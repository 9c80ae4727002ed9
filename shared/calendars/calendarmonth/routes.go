package calendarmonth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Store is what the month and its share links read and write.
type Store interface {
	calendardays.Store
	NewShareLinkID(ctx context.Context, cid int64) (int64, error)
	CreateShareLink(ctx context.Context, l *calstore.ShareLink) error
	GetShareLink(ctx context.Context, cid, id int64) (*calstore.ShareLink, error)
	ShareLinks(ctx context.Context, cid, calID int64) ([]calstore.ShareLink, error)
	DeleteShareLink(ctx context.Context, l *calstore.ShareLink) error
	ShareLinkWithCalendar(ctx context.Context, cid, calID, id int64) (*calstore.ShareLink, *timeline.Calendar, error)
}

// storage is the day view's reads (eventstore) with the calendars' share links (calstore).
type storage struct {
	*eventstore.Events
	*calstore.Calendars
}

// GetCalendar and DayWeatherBetween: both embedded types serve them; the calendars' own.
func (s storage) GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error) {
	return s.Calendars.GetCalendar(ctx, cid, id)
}

func (s storage) DayWeatherBetween(ctx context.Context, cid, calID int64, from, to calengine.Date) ([]timeline.DayWeather, error) {
	return s.Calendars.DayWeatherBetween(ctx, cid, calID, from, to)
}

// SharePath is where a share link's month page is served, without a token: SharePath+token,
// and its image at SharePath+token+"/month.svg".
const SharePath = "/share/"

// Audiences of a share link: what a viewer who is not a member of a public campaign sees, or
// what a plain member (role member, no records of their own) sees.
const (
	AudiencePublic = "public"
	AudienceMember = "member"
)

// MaxExpiry bounds a link's expires_at.
const MaxExpiry = 10 * 366 * 24 * time.Hour

type handlers struct {
	st  Store
	key []byte
	now func() time.Time
}

// KeyFromEnv is the key share links are signed with: SHARE_LINK_KEY (the stack's secret, at
// least 32 characters). Without one (a local server, the tests) the process makes its own, so
// its links open only while it runs.
func KeyFromEnv(getenv func(string) string) []byte {
	if k := getenv("SHARE_LINK_KEY"); len(k) >= 32 {
		return []byte(k)
	} else if k != "" {
		slog.Warn("SHARE_LINK_KEY is shorter than 32 characters: a key of this process is used instead")
	}
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// Register mounts the month page, its image and the share links.
func Register(api *httpapi.API, kernel *store.Store, key []byte) {
	h := handlers{st: storage{eventstore.New(kernel), calstore.New(kernel)}, key: key, now: kernel.Now}
	cal := httpapi.ReadAhead(calstore.ReadCalendar, "id", "")
	api.Handle("GET", "/calendars/{id}/month", h.month, cal)
	api.Handle("GET", "/calendars/{id}/month.svg", h.monthSVG, cal)
	api.Handle("POST", "/calendars/{id}/share_links", h.createLink, cal)
	api.Handle("GET", "/calendars/{id}/share_links", h.listLinks, cal)
	api.Handle("DELETE", "/calendars/{id}/share_links/{link_id}", h.deleteLink, cal)
	api.HandlePublic("GET "+SharePath+"{token}", h.shared(false))
	api.HandlePublic("GET "+SharePath+"{token}/month.svg", h.shared(true))
}

// month answers the month page: HTML to a browser, the month's JSON to other clients.
func (h handlers) month(r *httpapi.Request) (httpapi.Reply, error) {
	m, v, err := h.read(r, nil)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if !httpapi.WantsHTML(r.Request) {
		return httpapi.One(m), nil
	}
	return page(m, v, r.URL.Path, r.URL.Path+".svg?"+svgQuery(m, v))
}

func (h handlers) monthSVG(r *httpapi.Request) (httpapi.Reply, error) {
	m, v, err := h.read(r, nil)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return image(m, v)
}

// svgQuery is the query of the image of the month m shown in view v.
func svgQuery(m *Month, v view) string {
	q := url.Values{}
	if t := v.keep.Get("theme"); t != "" {
		q.Set("theme", t)
	}
	q.Set("year", strconv.FormatInt(m.Year, 10))
	q.Set("month", strconv.Itoa(m.Month))
	return q.Encode()
}

// read builds the month a request asks for, on calendar c (nil: the visible calendar of the
// path, read ahead).
func (h handlers) read(r *httpapi.Request, c *timeline.Calendar) (*Month, view, error) {
	v, err := viewOf(r.URL.Query(), c != nil)
	if err != nil {
		return nil, v, err
	}
	if c == nil {
		if c, err = calwire.Visible(r, h.st); err != nil {
			return nil, v, err
		}
	}
	eng, err := c.Engine()
	if err != nil {
		return nil, v, err
	}
	year, month, err := which(r, c, eng)
	if err != nil {
		return nil, v, err
	}
	m, err := build(r, h.st, c, eng, year, month)
	return m, v, err
}

// linkJSON is a share link as its routes answer it; url and embed_url only when it is made
// (the token is not stored, so no later read can answer it).
type linkJSON struct {
	ID         int64   `json:"id"`
	CalendarID int64   `json:"calendar_id"`
	Audience   string  `json:"audience"`
	ExpiresAt  *string `json:"expires_at"`
	CreatedAt  string  `json:"created_at"`
	CreatedBy  int64   `json:"created_by"`
	URL        string  `json:"url,omitempty"`
	EmbedURL   string  `json:"embed_url,omitempty"`
}

func renderLink(l *calstore.ShareLink) linkJSON {
	j := linkJSON{ID: l.ID, CalendarID: l.CalendarID, Audience: l.Audience, CreatedAt: domain.FormatTime(l.CreatedAt), CreatedBy: l.CreatedBy}
	if l.ExpiresAt != nil {
		s := domain.FormatTime(*l.ExpiresAt)
		j.ExpiresAt = &s
	}
	return j
}

// admin reads the visible calendar of the path for an admin; a member is refused (403).
func (h handlers) admin(r *httpapi.Request) (*timeline.Calendar, error) {
	c, err := calwire.Visible(r, h.st)
	if err != nil {
		return nil, err
	}
	if !r.Access.IsAdmin() {
		return nil, apperr.ErrForbidden
	}
	return c, nil
}

// createLink makes a share link: {audience: public|member, expires_at?}. Its URL is answered
// once.
func (h handlers) createLink(r *httpapi.Request) (httpapi.Reply, error) {
	c, err := h.admin(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	rd := domain.NewReader(in)
	aud := rd.OneOf("audience", []string{AudiencePublic, AudienceMember}, nil)
	exp := rd.String("expires_at", 64)
	if err := rd.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	if !aud.Present() {
		return httpapi.Reply{}, apperr.Invalid("audience", "The audience field is required (public or member).")
	}
	if c.IsPrivate {
		return httpapi.Reply{}, apperr.Invalid("audience", "The calendar is private: only the campaign's admins may see it, so it cannot be shared.")
	}
	l := &calstore.ShareLink{CampaignID: c.CampaignID, CalendarID: c.ID, Audience: aud.Value, CreatedBy: r.Access.UserID}
	if exp.Present() {
		t, perr := time.Parse(time.RFC3339, exp.Value)
		now := h.now()
		switch {
		case perr != nil:
			return httpapi.Reply{}, apperr.Invalid("expires_at", "The expires at must be a date and time (RFC 3339, e.g. 2030-01-31T18:00:00Z).")
		case !t.After(now):
			return httpapi.Reply{}, apperr.Invalid("expires_at", "The expires at must be in the future.")
		case t.Sub(now) > MaxExpiry:
			return httpapi.Reply{}, apperr.Invalid("expires_at", "The expires at must be within 10 years.")
		}
		t = t.UTC().Truncate(time.Second)
		l.ExpiresAt = &t
	}
	if l.ID, err = h.st.NewShareLinkID(r.Context(), c.CampaignID); err != nil {
		return httpapi.Reply{}, err
	}
	tok := h.mint(c.CampaignID, c.ID, l.ID)
	sum := sha256.Sum256([]byte(tok))
	l.TokenHash = sum[:]
	if err := h.st.CreateShareLink(r.Context(), l); err != nil {
		return httpapi.Reply{}, err
	}
	j := renderLink(l)
	j.URL = r.AbsoluteURL(SharePath + tok)
	j.EmbedURL = j.URL + "?embed=1"
	return httpapi.One(j), nil
}

func (h handlers) listLinks(r *httpapi.Request) (httpapi.Reply, error) {
	c, err := h.admin(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	ls, err := h.st.ShareLinks(r.Context(), c.CampaignID, c.ID)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := make([]linkJSON, len(ls))
	for i := range ls {
		out[i] = renderLink(&ls[i])
	}
	return httpapi.One(out), nil
}

func (h handlers) deleteLink(r *httpapi.Request) (httpapi.Reply, error) {
	c, err := h.admin(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	id, err := r.PathID("link_id")
	if err != nil {
		return httpapi.Reply{}, err
	}
	l, err := h.st.GetShareLink(r.Context(), c.CampaignID, id)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if l.CalendarID != c.ID {
		return httpapi.Reply{}, apperr.ErrNotFound
	}
	if err := h.st.DeleteShareLink(r.Context(), l); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Deleted(id), nil
}

// A token is base64url(campaign id, calendar id, link id, 16 random bytes, HMAC-SHA256 of the
// four under the stack's key): 80 bytes. The MAC refuses a guessed or altered token before
// any read; the link's stored SHA-256 of the token ties it to one link, so a revoked link's
// token (its item gone) or a token of a link made again under the same id opens nothing.
const (
	payloadLen = 8 * 3
	nonceLen   = 16
	tokenLen   = payloadLen + nonceLen + sha256.Size
)

var tokenContext = []byte("lorekeep calendar share link\x00")

func (h handlers) sign(b []byte) []byte {
	m := hmac.New(sha256.New, h.key)
	m.Write(tokenContext)
	m.Write(b)
	return m.Sum(nil)
}

func (h handlers) mint(cid, calID, id int64) string {
	var nonce [nonceLen]byte
	_, _ = rand.Read(nonce[:])
	return Token(h.key, cid, calID, id, nonce)
}

// Token is the token of link id of calendar calID in campaign cid with the given nonce, signed
// with key (a link's is made with a random nonce; the sample events' with a known one).
func Token(key []byte, cid, calID, id int64, nonce [16]byte) string {
	b := make([]byte, payloadLen, tokenLen)
	binary.BigEndian.PutUint64(b[0:], uint64(cid))
	binary.BigEndian.PutUint64(b[8:], uint64(calID))
	binary.BigEndian.PutUint64(b[16:], uint64(id))
	b = append(b, nonce[:]...)
	return base64.RawURLEncoding.EncodeToString(append(b, handlers{key: key}.sign(b)...))
}

// errLink is every way a token opens nothing (guessed, altered, revoked, its calendar gone):
// one answer, so none tells which.
var errLink = &apperr.Error{Code: apperr.ENotFound, Message: "The share link does not exist or was revoked."}

// errExpired: a true link past its expires_at.
var errExpired = &apperr.Error{Code: apperr.ENotFound, Message: "The share link has expired."}

// open checks token and reads its link and calendar: no read for a token whose MAC fails, one
// BatchGetItem otherwise.
func (h handlers) open(ctx context.Context, tok string) (*calstore.ShareLink, *timeline.Calendar, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) != tokenLen || !hmac.Equal(raw[payloadLen+nonceLen:], h.sign(raw[:payloadLen+nonceLen])) {
		return nil, nil, errLink
	}
	cid, calID, id := int64(binary.BigEndian.Uint64(raw[0:])), int64(binary.BigEndian.Uint64(raw[8:])), int64(binary.BigEndian.Uint64(raw[16:]))
	l, c, err := h.st.ShareLinkWithCalendar(ctx, cid, calID, id)
	if errors.Is(err, apperr.ErrNotFound) {
		return nil, nil, errLink
	}
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(sum[:], l.TokenHash) != 1 || l.CalendarID != c.ID {
		return nil, nil, errLink
	}
	if l.ExpiresAt != nil && !h.now().Before(*l.ExpiresAt) {
		return nil, nil, errExpired
	}
	return l, c, nil
}

// shared serves a share link's month page (or its image): read-only, the link's calendar
// only, as its audience may see it.
func (h handlers) shared(svg bool) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		l, c, err := h.open(req.Context(), req.PathValue("token"))
		if err != nil {
			httpapi.WriteError(w, req, err)
			return
		}
		acc := domain.Access{CampaignID: l.CampaignID, Role: domain.RolePublic}
		if l.Audience == AudienceMember {
			acc.Role = domain.RoleMember
		}
		if !acc.CanSee(c.IsPrivate) { // made private since
			httpapi.WriteError(w, req, errLink)
			return
		}
		r := httpapi.Viewer(req, acc)
		m, v, err := h.read(r, c)
		if err != nil {
			httpapi.WriteError(w, req, err)
			return
		}
		var rp httpapi.Reply
		if svg {
			rp, err = image(m, v)
		} else {
			base := SharePath + req.PathValue("token")
			rp, err = page(m, v, base, base+"/month.svg?"+svgQuery(m, v))
		}
		if err != nil {
			httpapi.WriteError(w, req, err)
			return
		}
		httpapi.WriteDocument(w, req, rp)
	}
}
