package calendarmonth

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// view is how a month is shown: in a page of its own or embedded in another site's iframe,
// light or dark.
type view struct {
	Embed bool
	Theme string // "light" or "dark"
	// keep is the query a link to another month carries besides year and month (embed, theme).
	keep url.Values
}

// viewOf reads ?embed=1 and ?theme=light|dark; anything else is a 422 naming the field.
func viewOf(q url.Values, embedAllowed bool) (view, error) {
	v := view{Theme: "light", keep: url.Values{}}
	switch t := q.Get("theme"); t {
	case "", "light":
	case "dark":
		v.Theme = "dark"
		v.keep.Set("theme", t)
	default:
		return v, apperr.Invalid("theme", "The theme must be light or dark.")
	}
	switch e := q.Get("embed"); e {
	case "", "0", "false":
	case "1", "true":
		if !embedAllowed {
			return v, apperr.Invalid("embed", "Only a share link's page can be embedded.")
		}
		v.Embed = true
		v.keep.Set("embed", "1")
	default:
		return v, apperr.Invalid("embed", "The embed field must be 1 or 0.")
	}
	return v, nil
}

// pageData is what the page template reads.
type pageData struct {
	*Month
	View    view
	Nonce   string
	Styles  []template.CSS
	SVG     string // the link to the month's image
	PrevURL string
	NextURL string
}

// monthURL is the link to another month of the same view.
func (v view) monthURL(base string, ref *MonthRef) string {
	if ref == nil {
		return ""
	}
	q := url.Values{}
	for k, vs := range v.keep {
		q[k] = vs
	}
	q.Set("year", strconv.FormatInt(ref.Year, 10))
	q.Set("month", strconv.Itoa(ref.Month))
	return base + "?" + q.Encode()
}

// styles are the colour classes of the month's moons and events, for its style sheet: each
// colour passed safeColour, so the rule is trusted CSS.
func (m *Month) styles() []template.CSS {
	out := make([]template.CSS, 0, len(m.colours))
	for c, k := range m.colours {
		out = append(out, template.CSS("."+k+"{--c:"+c+"}"))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	// Wide weeks scroll rather than squeeze their days below reading width.
	return append(out, template.CSS("table.month{min-width:"+strconv.Itoa(7*max(1, len(m.Weekdays)))+"em}"))
}

// headers are the page's: a strict Content-Security-Policy (nothing but its own style sheet,
// by nonce, and inline images), no referrer (a share link's URL is its key), no caching (a
// revoked link stops at once), and framing allowed only in embed mode.
func headers(nonce string, embed bool) http.Header {
	h := http.Header{}
	ancestors := "'none'"
	if embed {
		ancestors = "*"
	} else {
		h.Set("X-Frame-Options", "DENY")
	}
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+nonce+"'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors "+ancestors)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	return h
}

// page renders the month as its HTML page: base is the path the month links are relative to,
// svg the link to its image.
func page(m *Month, v view, base, svg string) (httpapi.Reply, error) {
	var nb [16]byte
	_, _ = rand.Read(nb[:])
	nonce := base64.RawStdEncoding.EncodeToString(nb[:])
	d := pageData{Month: m, View: v, Nonce: nonce, Styles: m.styles(), SVG: svg,
		PrevURL: v.monthURL(base, m.Prev), NextURL: v.monthURL(base, m.Next)}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, d); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Document("text/html; charset=utf-8", buf.Bytes(), headers(nonce, v.Embed)), nil
}

// moonPath is the lit part of a moon at phase index of count (0: full) on a disc of radius r
// centred at (r, r): the right half and the terminator's half ellipse while it waxes, the left
// while it wanes.
func moonPath(index, count int, r float64) string {
	if count <= 0 {
		count = 8
	}
	p := math.Mod(float64(index)/float64(count)+0.5, 1) // 0: new, 0.5: full
	rx := r * math.Abs(math.Cos(2*math.Pi*p))
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	outer, inner := "1", "0"
	switch {
	case p < 0.25: // waxing crescent: lit right, the terminator bulging right
	case p < 0.5: // waxing gibbous
		inner = "1"
	case p < 0.75: // waning gibbous: lit left
		outer, inner = "0", "0"
	default: // waning crescent
		outer, inner = "0", "1"
	}
	return "M" + f(r) + ",0A" + f(r) + "," + f(r) + " 0 0 " + outer + " " + f(r) + "," + f(2*r) +
		"A" + f(rx) + "," + f(r) + " 0 0 " + inner + " " + f(r) + ",0Z"
}

var funcs = template.FuncMap{
	"moonPath": moonPath,
	"class":    func(x any) string { return classOf(x) },
	"add":      func(a, b int) int { return a + b },
	"mul":      func(a, b int) int { return a * b },
	"cut":      cut,
	"join":     strings.Join,
}

func classOf(x any) string {
	switch v := x.(type) {
	case Moon:
		return v.class
	case Event:
		return v.class
	}
	return ""
}

// cut shortens s to n characters (runes), with an ellipsis.
func cut(n int, s string) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

var pageTemplate = template.Must(template.New("page").Funcs(funcs).Parse(`<!doctype html>
<html lang="en" class="{{.View.Theme}}{{if .View.Embed}} embed{{end}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Name}} {{.Year}} · {{.Calendar}}</title>
<style nonce="{{.Nonce}}">
:root{--bg:#ffffff;--fg:#1a1a1a;--muted:#4a4a4a;--line:#8a8a8a;--cell:#f6f6f6;--today:#fff2b3;--todayline:#7a5c00;--link:#0645ad}
html.dark{--bg:#121212;--fg:#f0f0f0;--muted:#c8c8c8;--line:#6a6a6a;--cell:#1e1e1e;--today:#4a3b00;--todayline:#ffd84d;--link:#8ab4ff}
html{background:var(--bg);color:var(--fg);font:14px/1.35 system-ui,sans-serif}
body{margin:0;padding:12px}
html.embed body{padding:4px}
header.site{margin-bottom:8px}
html.embed header.site{display:none}
h1{font-size:1.3em;margin:0}
h2{font-size:1.15em;margin:0}
nav.months{display:flex;gap:12px;align-items:center;margin:6px 0}
a{color:var(--link)}
.wrap{overflow-x:auto}
table.month{border-collapse:collapse;width:100%;table-layout:fixed}
table.month th{border:1px solid var(--line);padding:4px;background:var(--cell);font-weight:600}
table.month td{border:1px solid var(--line);vertical-align:top;padding:3px;height:5.5em;overflow:hidden}
td.blank{background:var(--cell)}
td.today{background:var(--today);outline:3px solid var(--todayline);outline-offset:-3px}
td.outside{background:var(--cell);height:auto}
.num{font-weight:700}
.badge{font-size:.8em;font-weight:700;margin-left:4px}
.leap{font-size:.8em;font-style:italic}
.meta{font-size:.8em;color:var(--muted)}
ul.events{list-style:none;margin:2px 0 0;padding:0}
ul.events li{font-size:.85em;border-left:4px solid var(--c,grey);padding-left:3px;margin:1px 0;overflow-wrap:anywhere}
.moons svg{vertical-align:middle}
.moons .lit{fill:var(--c,#dddddd)}
.moons .disc{fill:#333333;stroke:var(--line);stroke-width:1}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.omitted{border:1px solid var(--line);padding:6px;margin:8px 0}
span.day{display:inline-block;margin:0 10px 4px 0;vertical-align:top}
{{range .Styles}}{{.}}
{{end}}</style>
</head>
<body>
<header class="site"><h1>{{.Calendar}}</h1></header>
<main>
<h2 id="month">{{.Name}} {{.YearText}}</h2>
<nav class="months" aria-label="Months">
{{if .PrevURL}}<a rel="prev" href="{{.PrevURL}}">← {{.Prev.Name}} {{.Prev.Year}}</a>{{end}}
{{if .NextURL}}<a rel="next" href="{{.NextURL}}">{{.Next.Name}} {{.Next.Year}} →</a>{{end}}
{{if not .View.Embed}}<a href="{{.SVG}}">Image (SVG)</a>{{end}}
</nav>
{{if .Omitted}}<section class="omitted" aria-label="Left out"><p>Not everything fits on this page:</p><ul>{{range .Omitted}}<li>{{.}}</li>{{end}}</ul></section>{{end}}
<div class="wrap">
<table class="month" aria-labelledby="month" data-cols="{{len .Weekdays}}">
<caption class="sr">{{.Name}} {{.YearText}}: {{.Days}} days{{if .Intercalary}}, an intercalary month{{end}}</caption>
{{if .Weekdays}}<thead><tr>{{range .Weekdays}}<th scope="col">{{.}}</th>{{end}}</tr></thead>{{end}}
<tbody>
{{$cols := len .Weekdays}}
{{range .Weeks}}<tr>{{if .Outside}}<td class="outside" colspan="{{if $cols}}{{$cols}}{{else}}1{{end}}">{{range .Outside}}<span class="day{{if .Current}} today{{end}}" data-date="{{.Date}}">{{template "day" .}}</span>{{end}}</td>{{else}}{{range .Cells}}{{if .}}<td class="day{{if .Current}} today{{end}}{{if .LeapDay}} leapday{{end}}" data-date="{{.Date}}"{{if .Current}} aria-current="date"{{end}}>{{template "day" .}}</td>{{else}}<td class="blank"></td>{{end}}{{end}}{{end}}</tr>
{{end}}</tbody>
</table>
</div>
{{if .Moons}}<p class="meta">Moons: {{range $i, $m := .Moons}}{{if $i}}, {{end}}{{$m.Name}}{{end}}</p>{{end}}
</main>
</body>
</html>
{{define "day"}}<span class="num">{{.Label}}</span>{{if .Current}}<span class="badge">Today</span>{{end}}{{if .LeapDay}} <span class="leap">{{if .LeapName}}{{.LeapName}}{{else}}leap day{{end}}</span>{{end}}
{{if or .Season .Weather}}<div class="meta">{{.Season}}{{if and .Season .Weather}} · {{end}}{{.Weather}}</div>{{end}}
{{if .Moons}}<div class="moons">{{range .Moons}}<span class="{{class .}}" title="{{.Name}}: {{.Phase}}"><svg width="14" height="14" viewBox="-1 -1 14 14" aria-hidden="true"><circle class="disc" cx="6" cy="6" r="6"/><path class="lit" d="{{moonPath .Index .Count 6.0}}"/></svg><span class="sr">{{.Name}}: {{.Phase}}</span></span>{{end}}{{if .MoreMoons}} <span class="meta">+{{.MoreMoons}} moons</span>{{end}}</div>{{end}}
{{if .Events}}<ul class="events">{{range .Events}}<li class="{{class .}}">{{if .Time}}{{.Time}} {{end}}{{.Name}}{{if ne .Start .End}} <span class="meta">({{.Start}} to {{.End}})</span>{{end}}</li>{{end}}{{if .More}}<li>and {{.More}} more</li>{{end}}</ul>{{end}}{{end}}
`))
