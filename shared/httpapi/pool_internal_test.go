package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// poolRow is a row with a hand encoder (the path list pages take) whose size varies with n.
type poolRow struct {
	ID    int    `json:"id"`
	Entry string `json:"entry"`
}

func (p *poolRow) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"id":`...)
	b = AppendInt(b, int64(p.ID))
	b = append(b, `,"entry":`...)
	return append(AppendString(b, p.Entry), '}'), true
}

// pageOf is page k of a test list: its rows differ from every other page's in number, ids and
// text, and shrink and grow from one page to the next, so that a buffer reused with another
// page's bytes left in it shows in the answer.
func pageOf(k int) []poolRow {
	out := make([]poolRow, 1+k*7%45)
	for i := range out {
		out[i] = poolRow{ID: k*1000 + i, Entry: fmt.Sprintf("<p>page %d row %d %s</p>", k, i, strings.Repeat("é", (k*13+i)%200))}
	}
	return out
}

// answer writes page k through the reply a handler returns (a list page, a day view's rows,
// or one record), then releases it as the route does, and checks the body holds exactly page
// k's rows.
func answer(t *testing.T, k int) error {
	rows := pageOf(k)
	r := &Request{Request: httptest.NewRequest("GET", "/x?page=1", nil), query: url.Values{"page": {"1"}}, now: time.Unix(0, 0)}
	var reply Reply
	switch k % 3 {
	case 0:
		reply = Many(rows, 1000, "", nil, domain.PageRequest{Page: 1, Limit: 45})
	case 1:
		b := NewRows(MaxPageBytes, false)
		b.Expect(len(rows))
		for i := range rows {
			if _, err := b.Add(&rows[i]); err != nil {
				return err
			}
		}
		reply = b.Reply()
	default:
		reply = One(&rows[0])
	}
	w := httptest.NewRecorder()
	reply.write(w, r)
	reply.release()
	var got struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		return fmt.Errorf("page %d: %v: %s", k, err, w.Body)
	}
	var want any = rows
	if k%3 == 2 {
		want = rows[0]
	}
	wantJSON, _ := encodeJSON(want)
	if string(got.Data) != string(wantJSON) {
		return fmt.Errorf("page %d: data\n%s\nwant\n%s", k, got.Data, wantJSON)
	}
	if cl := w.Header().Get("Content-Length"); cl != fmt.Sprint(w.Body.Len()) {
		return fmt.Errorf("page %d: Content-Length %s for %d bytes", k, cl, w.Body.Len())
	}
	return nil
}

// Rows and bodies come from a pool and go back once written: no answer may carry another's
// bytes, one after another (each page of a different size from the last) or concurrently.
func TestPooledBuffersKeepEachAnswerItsOwn(t *testing.T) {
	t.Parallel()
	t.Run("in a row", func(t *testing.T) {
		for k := range 60 {
			if err := answer(t, k); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for g := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 150 {
					if err := answer(t, g*150+i); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
	t.Run("a buffer over the cap is not kept", func(t *testing.T) {
		p, b := getBuf(maxPooledBuf + 1)
		putBuf(p, b)
		for range 4 {
			if q, c := getBuf(0); cap(c) > maxPooledBuf {
				t.Fatalf("pool handed out a buffer of %d bytes", cap(c))
			} else {
				defer putBuf(q, c)
			}
		}
	})
}
