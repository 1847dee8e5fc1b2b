package reports

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// tableWrapOpen is the box every table of the report sits in; its CSS rule lets a table wider than
// the window scroll inside it rather than widen the page.
const tableWrapOpen = `<div class="table-wrap">`

var (
	cssRule    = regexp.MustCompile(`(?s)([^{}]+)\{([^{}]*)\}`)
	cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
)

// tableContainment lists what keeps a report template's tables from fitting the window: a
// .table-wrap rule that does not scroll, or a table outside a .table-wrap box.
func tableContainment(page string) []string {
	var problems []string
	style, _, _ := strings.Cut(page, "</style>")
	_, style, _ = strings.Cut(style, "<style>")
	style = cssComment.ReplaceAllString(style, "")
	decl := map[string]string{}
	for _, m := range cssRule.FindAllStringSubmatch(style, -1) {
		if strings.TrimSpace(m[1]) != ".table-wrap" {
			continue
		}
		for _, d := range strings.Split(m[2], ";") {
			if k, v, ok := strings.Cut(d, ":"); ok {
				decl[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	}
	if decl["overflow-x"] != "auto" || decl["max-width"] != "100%" {
		problems = append(problems, fmt.Sprintf("CSS: want .table-wrap { max-width: 100%%; overflow-x: auto }, got %v", decl))
	}
	rest := page
	for n := 1; ; n++ {
		i := strings.Index(rest, "<table")
		if i < 0 {
			break
		}
		end := strings.Index(rest[i:], "</table>")
		if end < 0 {
			problems = append(problems, fmt.Sprintf("table %d: no </table>", n))
			break
		}
		if !strings.HasSuffix(strings.TrimSpace(rest[:i]), tableWrapOpen) ||
			!strings.HasPrefix(strings.TrimSpace(rest[i+end+len("</table>"):]), "</div>") {
			problems = append(problems, fmt.Sprintf("table %d (%.40q): not directly inside %s…</div>", n, rest[i:], tableWrapOpen))
		}
		rest = rest[i+end:]
	}
	return problems
}

func TestEveryTableFitsTheWindow(t *testing.T) {
	const css = "<style>\n.table-wrap { max-width: 100%; overflow-x: auto; }\n</style>"
	for _, tc := range []struct {
		name, page string
		problems   int
	}{
		{"report template", pageTemplate, 0},
		{"wrapped", css + `<div class="table-wrap"><table id="x"><tr></tr></table></div>`, 0},
		{"one bare table", css + `<div class="table-wrap"><table></table></div><table></table>`, 1},
		{"wrapper closed late", css + `<div class="table-wrap"><table></table><p>x</p></div>`, 1},
		{"no rule", "<style>table { }</style>" + `<div class="table-wrap"><table></table></div>`, 1},
		{"hidden overflow", "<style>.table-wrap { max-width: 100%; overflow-x: hidden }</style>", 1},
		{"rule commented out", "<style>/* .table-wrap { max-width: 100%; overflow-x: auto } */</style>", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tableContainment(tc.page)
			if len(got) != tc.problems {
				t.Errorf("%d problems, want %d: %q", len(got), tc.problems, got)
			}
		})
	}
	if n := strings.Count(pageTemplate, "<table"); n < 10 {
		t.Errorf("the template has %d tables; the check above reads it wrong", n)
	}
}
