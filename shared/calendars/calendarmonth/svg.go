package calendarmonth

import (
	"bytes"
	"strconv"
	"strings"

	"html/template"

	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// The image's geometry, in pixels.
const (
	cellW, cellH = 120, 100
	headH        = 56 // title and year
	weekH        = 24 // the weekday headers
	bandH        = 30 // a row of days outside the week
	noteH        = 18
	svgEvents    = 3 // events drawn in a cell
	svgMoons     = 4
)

type svgText struct {
	X, Y int
	Text string
}

type svgMoon struct {
	X, Y   int
	Path   string
	Colour string
	Title  string
}

type svgEvent struct {
	X, Y, W int
	Colour  string
	Text    string
}

type svgCell struct {
	X, Y, W, H int
	Today      bool
	Label      svgText
	Meta       *svgText
	Moons      []svgMoon
	Events     []svgEvent
	More       *svgText
}

type svgData struct {
	W, H                      int
	Bg, Fg, Muted, Line, Cell string
	TodayFill, TodayLine      string
	Title, Sub                svgText
	Heads                     []svgText
	Cells                     []svgCell
	Bands                     []svgCell
	Notes                     []svgText
}

// colourOf is colour c for an attribute: a safe one as it is, grey otherwise.
func colourOf(c string) string {
	if safeColour.MatchString(c) {
		return c
	}
	return "grey"
}

// image renders the month as an SVG image: the same month as the page, its cells' events cut
// to what fits (the page lists them all up to its limits).
func image(m *Month, v view) (httpapi.Reply, error) {
	cols := max(1, len(m.Weekdays))
	d := svgData{W: cols * cellW, Bg: "#ffffff", Fg: "#1a1a1a", Muted: "#4a4a4a", Line: "#8a8a8a", Cell: "#f6f6f6",
		TodayFill: "#fff2b3", TodayLine: "#7a5c00"}
	if v.Theme == "dark" {
		d.Bg, d.Fg, d.Muted, d.Line, d.Cell, d.TodayFill, d.TodayLine = "#121212", "#f0f0f0", "#c8c8c8", "#6a6a6a", "#1e1e1e", "#4a3b00", "#ffd84d"
	}
	d.Title = svgText{X: 8, Y: 24, Text: cut(cols*cellW/11, m.Calendar)}
	d.Sub = svgText{X: 8, Y: 46, Text: cut(cols*cellW/9, m.Name+" "+m.YearText)}
	y := headH
	if len(m.Weekdays) > 0 {
		for i, w := range m.Weekdays {
			d.Heads = append(d.Heads, svgText{X: i*cellW + cellW/2, Y: y + 17, Text: cut(cellW/8, w)})
		}
		y += weekH
	}
	for _, wk := range m.Weeks {
		if wk.Outside != nil {
			labels := make([]string, 0, len(wk.Outside))
			today := false
			for _, day := range wk.Outside {
				l := day.Label
				if day.LeapDay && day.LeapName != "" && day.LeapName != day.Label {
					l += " " + day.LeapName
				}
				labels = append(labels, l)
				today = today || day.Current
			}
			d.Bands = append(d.Bands, svgCell{X: 0, Y: y, W: cols * cellW, H: bandH, Today: today,
				Label: svgText{X: 8, Y: y + 20, Text: cut(cols*cellW/8, strings.Join(labels, " · "))}})
			y += bandH
			continue
		}
		for i, day := range wk.Cells {
			if day == nil {
				continue
			}
			x := i * cellW
			c := svgCell{X: x, Y: y, W: cellW, H: cellH, Today: day.Current, Label: svgText{X: x + 6, Y: y + 16, Text: day.Label}}
			if meta := strings.TrimSpace(day.Season + " " + day.Weather); meta != "" {
				c.Meta = &svgText{X: x + 6, Y: y + 30, Text: cut(cellW/6, meta)}
			}
			for j, mo := range day.Moons {
				if j == svgMoons {
					break
				}
				c.Moons = append(c.Moons, svgMoon{X: x + cellW - 18 - 16*j, Y: y + 4, Path: moonPath(mo.Index, mo.Count, 6), Colour: colourOf(mo.Colour), Title: mo.Name + ": " + mo.Phase})
			}
			for j, e := range day.Events {
				if j == svgEvents {
					break
				}
				text := e.Name
				if e.Time != nil {
					text = *e.Time + " " + text
				}
				c.Events = append(c.Events, svgEvent{X: x + 4, Y: y + 36 + 17*j, W: cellW - 8, Colour: colourOf(e.Colour), Text: cut(cellW/7, text)})
			}
			if more := len(day.Events) - len(c.Events) + day.More; more > 0 {
				c.More = &svgText{X: x + 6, Y: y + cellH - 6, Text: "+" + strconv.Itoa(more) + " more"}
			}
			d.Cells = append(d.Cells, c)
		}
		y += cellH
	}
	for _, o := range m.Omitted {
		d.Notes = append(d.Notes, svgText{X: 8, Y: y + 14, Text: cut(cols*cellW/7, o)})
		y += noteH
	}
	d.H = y + 4
	var buf bytes.Buffer
	if err := svgTemplate.Execute(&buf, d); err != nil {
		return httpapi.Reply{}, err
	}
	h := headers("", v.Embed)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	return httpapi.Document("image/svg+xml", buf.Bytes(), h), nil
}

var svgTemplate = template.Must(template.New("svg").Parse(`<svg xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12" role="img" aria-labelledby="t">
<title id="t">{{.Title.Text}}: {{.Sub.Text}}</title>
<rect width="{{.W}}" height="{{.H}}" fill="{{.Bg}}"/>
<text x="{{.Title.X}}" y="{{.Title.Y}}" font-size="18" font-weight="bold" fill="{{.Fg}}">{{.Title.Text}}</text>
<text x="{{.Sub.X}}" y="{{.Sub.Y}}" font-size="15" fill="{{.Fg}}">{{.Sub.Text}}</text>
{{range .Heads}}<text x="{{.X}}" y="{{.Y}}" text-anchor="middle" font-weight="bold" fill="{{$.Fg}}">{{.Text}}</text>
{{end}}{{range .Bands}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{if .Today}}{{$.TodayFill}}{{else}}{{$.Cell}}{{end}}" stroke="{{$.Line}}"/><text x="{{.Label.X}}" y="{{.Label.Y}}" fill="{{$.Fg}}" font-style="italic">{{.Label.Text}}</text>
{{end}}{{range .Cells}}<g class="day{{if .Today}} today{{end}}"><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{if .Today}}{{$.TodayFill}}{{else}}{{$.Bg}}{{end}}" stroke="{{if .Today}}{{$.TodayLine}}{{else}}{{$.Line}}{{end}}" stroke-width="{{if .Today}}3{{else}}1{{end}}"/>
<text x="{{.Label.X}}" y="{{.Label.Y}}" font-weight="bold" fill="{{$.Fg}}">{{.Label.Text}}</text>
{{with .Meta}}<text x="{{.X}}" y="{{.Y}}" font-size="10" fill="{{$.Muted}}">{{.Text}}</text>{{end}}
{{range .Moons}}<g transform="translate({{.X}},{{.Y}})"><title>{{.Title}}</title><circle cx="6" cy="6" r="6" fill="#333333" stroke="{{$.Line}}"/><path d="{{.Path}}" fill="{{.Colour}}"/></g>{{end}}
{{range .Events}}<rect x="{{.X}}" y="{{.Y}}" width="4" height="14" fill="{{.Colour}}"/><text x="{{.X}}" dx="7" y="{{.Y}}" dy="11" font-size="11" fill="{{$.Fg}}">{{.Text}}</text>{{end}}
{{with .More}}<text x="{{.X}}" y="{{.Y}}" font-size="10" fill="{{$.Muted}}">{{.Text}}</text>{{end}}</g>
{{end}}{{range .Notes}}<text x="{{.X}}" y="{{.Y}}" font-size="11" fill="{{$.Muted}}">{{.Text}}</text>
{{end}}</svg>
`))
