package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// document is an answer that is not JSON: a page or an image the family rendered whole.
type document struct {
	contentType string
	body        []byte
	header      http.Header
}

// Document replies body as contentType with the headers given (a page's Content-Security-Policy):
// the month page's HTML and SVG. Errors stay JSON, as every route's.
func Document(contentType string, body []byte, header http.Header) Reply {
	return Reply{doc: &document{contentType: contentType, body: body, header: header}}
}

// WriteDocument writes a Document reply outside a campaign route (a public route's page).
func WriteDocument(w http.ResponseWriter, r *http.Request, rp Reply) {
	if rp.doc == nil {
		WriteError(w, r, errNoDocument)
		return
	}
	rp.doc.write(w, r)
}

var errNoDocument = &documentError{}

type documentError struct{}

func (*documentError) Error() string { return "httpapi: WriteDocument of a reply that is no document" }

func (d *document) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range d.header {
		h[k] = v
	}
	h.Set("Content-Type", d.contentType)
	h.Set("Content-Length", strconv.Itoa(len(d.body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(d.body)
	}
}

// Viewer is a Request for a public route that reads a campaign's records as acc may see them
// (a share link's audience): no token, the campaign known from what the route verified.
func Viewer(r *http.Request, acc domain.Access) *Request {
	return &Request{Request: r, Access: acc, query: parseQuery(r.URL.RawQuery)}
}

// WantsHTML reports whether the client's Accept names HTML before JSON (a browser's does).
func WantsHTML(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			switch mt, _, _ := strings.Cut(strings.TrimSpace(part), ";"); strings.TrimSpace(mt) {
			case "text/html", "application/xhtml+xml":
				return true
			case "application/json":
				return false
			}
		}
	}
	return false
}
