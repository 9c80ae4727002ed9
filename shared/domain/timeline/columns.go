package timeline

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Kanka's parallel arrays: a driver array (month_name) and companions of the same length
// (month_length, month_type), read by name into typed columns with the same domain.Reader as every
// other field. A structure is replaced only when its driver is sent, its required companions
// must come with it, and a companion sent without its driver is refused.

// parallel is one driver and the companions read so far.
type parallel struct {
	r      *domain.Reader
	driver string
	max    int
	sent   bool // the driver was sent
	n      int  // the driver's length
	ok     bool // everything read cleanly so far
}

func newParallel(r *domain.Reader, driver string, maxItems int) *parallel {
	return &parallel{r: r, driver: driver, max: maxItems, sent: r.Has(driver), ok: true}
}

// done reports whether the driver was sent and every column read cleanly: the structure is to
// be replaced.
func (p *parallel) done() bool { return p.ok && p.sent }

// col is one column: its values, and which were given (an optional companion or element may be
// absent, and then the default applies).
type col[T any] struct {
	vals  []T
	given []bool
}

func (c col[T]) at(i int, def T) T {
	if i < len(c.given) && c.given[i] {
		return c.vals[i]
	}
	return def
}

// elem reads one array element: its value and whether it was given, or a message (with
// :attribute) on failure.
type elem[T any] func(v any) (val T, given bool, msg string)

// column reads the column called name of p: the driver first, then each companion.
func column[T any](p *parallel, name string, e elem[T], required bool) col[T] {
	r := p.r
	if name == p.driver {
		if !p.sent {
			return col[T]{}
		}
		items, _ := r.List(name, p.max)
		p.n = len(items)
		p.ok = !r.Errs.Has(name)
		return elems(p, name, items, e)
	}
	items, f := r.List(name, p.max)
	switch {
	case r.Errs.Has(name):
		p.ok = false
	case !f.Present():
		if p.sent && required && p.n > 0 {
			r.Fail(name, "The :attribute field is required when "+domain.Label(p.driver)+" is present.")
			p.ok = false
		}
	case !p.sent:
		r.Fail(p.driver, "The :attribute field is required when "+domain.Label(name)+" is present.")
		p.ok = false
	case len(items) != p.n:
		r.Fail(name, "The :attribute must have the same number of items as the "+domain.Label(p.driver)+".")
		p.ok = false
	default:
		return elems(p, name, items, e)
	}
	return col[T]{}
}

func elems[T any](p *parallel, name string, items []any, e elem[T]) col[T] {
	c := col[T]{vals: make([]T, len(items)), given: make([]bool, len(items))}
	for i, it := range items {
		v, given, msg := e(it)
		if msg != "" {
			p.r.Fail(name+"."+strconv.Itoa(i), msg)
			p.ok = false
			continue
		}
		c.vals[i], c.given[i] = v, given
	}
	return c
}

// stringElem reads a non-empty text of at most max characters (runes).
func stringElem(max int) elem[string] {
	return func(v any) (string, bool, string) {
		s, isStr := v.(string)
		if !isStr {
			if v == nil {
				return "", false, "The :attribute field is required."
			}
			return "", false, "The :attribute must be a string."
		}
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			return "", false, "The :attribute field is required."
		case utf8.RuneCountInString(s) > max:
			return "", false, "The :attribute must not be greater than " + strconv.Itoa(max) + " characters."
		case !validText(s):
			return "", false, "The :attribute must be valid UTF-8 text."
		}
		return s, true, ""
	}
}

var nameElem = stringElem(domain.MaxNameLength)

// intElem reads an integer in [min, max].
func intElem(min, max int64) elem[int64] {
	return func(v any) (int64, bool, string) {
		n, ok := domain.ToInt(v)
		if !ok {
			return 0, false, "The :attribute must be an integer."
		}
		if n < min || n > max {
			return 0, false, "The :attribute must be between " + strconv.FormatInt(min, 10) + " and " + strconv.FormatInt(max, 10) + "."
		}
		return n, true, ""
	}
}

// optional lets an element be null or "" (not given: the default applies).
func optional[T any](e elem[T]) elem[T] {
	return func(v any) (T, bool, string) {
		if s, isStr := v.(string); v == nil || (isStr && strings.TrimSpace(s) == "") {
			var zero T
			return zero, false, ""
		}
		return e(v)
	}
}

// monthTypeElem reads a month type; null or "" is standard. The engine judges the value.
func monthTypeElem(v any) (string, bool, string) {
	if v == nil {
		return "", false, ""
	}
	s, ok := v.(string)
	if !ok {
		return "", false, "The :attribute must be a string."
	}
	s = strings.TrimSpace(s)
	return s, s != "", ""
}

// periodElem reads a moon period as the exact decimal text the client sent: a JSON number
// arrives as json.Number, whose text is kept (never a float). It is judged here, like the
// offset, so that a bad period is named by its index (moon_fullmoon.0).
func periodElem(v any) (string, bool, string) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true, calengine.PeriodProblem(string(x))
	case string:
		if s := strings.TrimSpace(x); s != "" {
			return s, true, calengine.PeriodProblem(s)
		}
	case nil:
	default:
		return "", false, "The :attribute must be a number."
	}
	return "", false, "The :attribute field is required."
}

func validText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }
