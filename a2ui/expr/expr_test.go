package expr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func dump(n Node) string {
	switch v := n.(type) {
	case Text:
		return fmt.Sprintf("T(%s)", string(v))
	case Literal:
		return fmt.Sprintf("L(%#v)", v.Value)
	case Path:
		return fmt.Sprintf("P(%s)", string(v))
	case *Call:
		var as []string
		for _, a := range v.Args {
			as = append(as, a.Name+"="+dump(a.Value))
		}
		return fmt.Sprintf("C(%s;%s)", v.Name, strings.Join(as, ","))
	}
	return "?"
}

func TestParse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hello", "T(hello)"},
		{"Hi ${/user/name}!", "T(Hi ) P(/user/name) T(!)"},
		{"${name}", "P(name)"},
		{`\${x}`, "T(${x})"},
		{"${'a}b'}", `L("a}b")`},
		{`${"q\"x"}`, `L("q\"x")`},
		{"${42}", "L(42)"},
		{"${true}${null}", "L(true) L(<nil>)"},
		{"${now()}", "C(now;)"},
		{"${formatDate(value:${/d}, format:'MM-dd')}", `C(formatDate;value=P(/d),format=L("MM-dd"))`},
		{"${upper(/n)}", "C(upper;value=P(/n))"},
		{"${a(b: c(d: /x))}", "C(a;b=C(c;d=P(/x)))"},
		{"$5 and {x}", "T($5 and {x})"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			tpl, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, p := range tpl.Parts {
				parts = append(parts, dump(p))
			}
			if got := strings.Join(parts, " "); got != tc.want {
				t.Fatalf("got %s want %s", got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"${", "${}", "${'abc}", "${f(a:1}", "${f(1, 2)}", strings.Repeat("${", 100)} {
		t.Run(in, func(t *testing.T) {
			_, err := Parse(in)
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q) err=%v", in, err)
			}
		})
	}
}
