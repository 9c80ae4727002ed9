// Package markdown converts entries between Markdown and HTML, both ways keeping mentions
// (`[character:12]`, `[character:12|Alias]`) as they are written. It converts only: an entry
// sent as Markdown becomes HTML that then takes the one path every HTML entry takes (the
// route's validator and sanitiser), so Markdown can never store what HTML could not.
package markdown

import (
	"bytes"
	"strconv"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// toHTML is CommonMark with GitHub's tables, strikethrough and autolinks. Raw HTML in the
// Markdown is passed on, to be sanitised with the rest as any HTML entry is.
var toHTML = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
	goldmark.WithRendererOptions(html.WithUnsafe()),
)

var toMarkdown = htmltomarkdown.NewConverter(htmltomarkdown.WithPlugins(
	base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), strikethrough.NewStrikethroughPlugin(), table.NewTablePlugin(),
))

// ToHTML is the HTML of a Markdown entry. Mentions stay text: Markdown reads an undefined
// reference `[character:12]` as the characters themselves.
func ToHTML(md string) (string, error) {
	var b bytes.Buffer
	if err := toHTML.Convert([]byte(md), &b); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// FromHTML is the Markdown of an HTML entry, its mentions unescaped.
func FromHTML(h string) (string, error) {
	if h == "" {
		return "", nil
	}
	// A mention is swapped for a placeholder of letters and digits, which Markdown never
	// escapes, and put back once converted.
	var kept []string
	marker := placeholderBase(h)
	h = domain.MentionSyntax().ReplaceAllStringFunc(h, func(m string) string {
		kept = append(kept, m)
		return marker + strconv.Itoa(len(kept)-1) + "Z"
	})
	md, err := toMarkdown.ConvertString(h)
	if err != nil {
		return "", err
	}
	for i := len(kept) - 1; i >= 0; i-- {
		md = strings.ReplaceAll(md, marker+strconv.Itoa(i)+"Z", kept[i])
	}
	return md, nil
}

// placeholderBase is a prefix that the text does not contain.
func placeholderBase(s string) string {
	p := "LKMENTION"
	for strings.Contains(s, p) {
		p += "X"
	}
	return p
}
