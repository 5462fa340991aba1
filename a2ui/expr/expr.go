package expr

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits applied by Parse.
const (
	MaxDepth = 32
	MaxLen   = 64 << 10
)

// Node is one element of a parsed template or expression: Text, Literal,
// Path or *Call.
type Node interface{ node() }

// Text is literal template text.
type Text string

// Literal is a quoted string, number, boolean or null inside ${…}.
type Literal struct{ Value any }

// Path is a data path inside ${…} (absolute or relative, unresolved).
type Path string

// Call is a function call inside ${…}.
type Call struct {
	Name string
	Args []Arg
}

// Arg is one named argument.
type Arg struct {
	Name  string
	Value Node
}

func (Text) node()    {}
func (Literal) node() {}
func (Path) node()    {}
func (*Call) node()   {}

// Template is a parsed formatString value: a sequence of Text and
// expression nodes.
type Template struct{ Parts []Node }

// SyntaxError locates a parse error.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("expr: syntax error at offset %d: %s", e.Offset, e.Msg)
}

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

type parser struct {
	s     string
	i     int
	depth int
}

func (p *parser) errf(format string, a ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, a...)}
}

// Parse parses a template string.
func Parse(s string) (*Template, error) {
	if len(s) > MaxLen {
		return nil, &SyntaxError{Offset: MaxLen, Msg: "template too long"}
	}
	p := &parser{s: s}
	t := &Template{}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			t.Parts = append(t.Parts, Text(text.String()))
			text.Reset()
		}
	}
	for p.i < len(s) {
		c := s[p.i]
		switch {
		case c == '\\' && strings.HasPrefix(s[p.i+1:], "${"):
			text.WriteString("${")
			p.i += 3
		case c == '\\' && strings.HasPrefix(s[p.i+1:], "\\${"):
			text.WriteByte('\\')
			p.i += 2
		case c == '$' && p.i+1 < len(s) && s[p.i+1] == '{':
			flush()
			n, err := p.block()
			if err != nil {
				return nil, err
			}
			t.Parts = append(t.Parts, n)
		default:
			text.WriteByte(c)
			p.i++
		}
	}
	flush()
	return t, nil
}

// ParseExpr parses a single expression (the inside of ${…}).
func ParseExpr(s string) (Node, error) {
	p := &parser{s: s}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(s) {
		return nil, p.errf("unexpected %q", s[p.i:])
	}
	return n, nil
}

// block parses "${ expr }" starting at "${".
func (p *parser) block() (Node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxDepth {
		return nil, p.errf("nesting deeper than %d", MaxDepth)
	}
	p.i += 2
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		return nil, p.errf("empty expression")
	}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i >= len(p.s) || p.s[p.i] != '}' {
		return nil, p.errf("missing '}'")
	}
	p.i++
	return n, nil
}

func (p *parser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func isDelim(c byte) bool {
	switch c {
	case '}', '{', '(', ')', ',', ':', ' ', '\t', '\n', '\r', '\'', '"', '$':
		return true
	}
	return false
}

func (p *parser) expr() (Node, error) {
	p.ws()
	if p.i >= len(p.s) {
		return nil, p.errf("unexpected end of input")
	}
	c := p.s[p.i]
	switch {
	case c == '$' && p.i+1 < len(p.s) && p.s[p.i+1] == '{':
		return p.block()
	case c == '\'' || c == '"':
		s, err := p.quoted()
		if err != nil {
			return nil, err
		}
		return Literal{Value: s}, nil
	}
	tok := p.token()
	if tok == "" {
		return nil, p.errf("unexpected %q", string(c))
	}
	if lit, ok := literalToken(tok); ok {
		return lit, nil
	}
	save := p.i
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '(' && !strings.Contains(tok, "/") {
		return p.call(tok)
	}
	p.i = save
	if strings.HasPrefix(tok, "@") { // ${@index}: a system function without ()
		return &Call{Name: tok}, nil
	}
	return Path(tok), nil
}

// token reads the run of bytes up to the next delimiter.
func (p *parser) token() string {
	start := p.i
	for p.i < len(p.s) && !isDelim(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// literalToken is the literal a bare token stands for: true, false, null
// or a number.
func literalToken(tok string) (Literal, bool) {
	switch tok {
	case "true":
		return Literal{Value: true}, true
	case "false":
		return Literal{Value: false}, true
	case "null":
		return Literal{Value: nil}, true
	}
	if (tok[0] >= '0' && tok[0] <= '9') || ((tok[0] == '-' || tok[0] == '+' || tok[0] == '.') && len(tok) > 1) {
		if f, err := strconv.ParseFloat(tok, 64); err == nil {
			return Literal{Value: f}, true
		}
	}
	return Literal{}, false
}

func (p *parser) call(name string) (Node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxDepth {
		return nil, p.errf("nesting deeper than %d", MaxDepth)
	}
	p.i++ // (
	c := &Call{Name: name}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ')' {
		p.i++
		return c, nil
	}
	for {
		arg, err := p.arg()
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, arg)
		p.ws()
		if p.i >= len(p.s) {
			return nil, p.errf("missing ')' in call to %s", name)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ')':
			p.i++
			// A single positional argument is "value"; more are an error.
			if nameValue(c.Args) > 1 {
				return nil, p.errf("call to %s: arguments must be named", name)
			}
			return c, nil
		default:
			return nil, p.errf("expected ',' or ')' in call to %s", name)
		}
	}
}

// arg parses a call's argument: ident ':' expr (named), else an
// expression (positional).
func (p *parser) arg() (Arg, error) {
	p.ws()
	save := p.i
	ident := p.token()
	p.ws()
	if ident != "" && p.i < len(p.s) && p.s[p.i] == ':' && !strings.Contains(ident, "/") {
		p.i++
		v, err := p.expr()
		return Arg{Name: ident, Value: v}, err
	}
	p.i = save
	v, err := p.expr()
	return Arg{Value: v}, err
}

// nameValue names the positional arguments "value" and returns how many
// there were.
func nameValue(args []Arg) int {
	pos := 0
	for i := range args {
		if args[i].Name == "" {
			pos++
			args[i].Name = "value"
		}
	}
	return pos
}

func (p *parser) quoted() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s):
			n := p.s[p.i+1]
			switch n {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(n)
			}
			p.i += 2
		case c == q:
			p.i++
			return b.String(), nil
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", p.errf("unterminated string")
}

// Paths returns every data path referenced by the template, in order
// (including those nested in call arguments). Paths are unresolved.
func (t *Template) Paths() []string {
	var out []string
	for _, n := range t.Parts {
		out = appendPaths(out, n)
	}
	return out
}

// Calls returns every function name called by the template.
func (t *Template) Calls() []string {
	var out []string
	var walk func(Node)
	walk = func(n Node) {
		if c, ok := n.(*Call); ok {
			out = append(out, c.Name)
			for _, a := range c.Args {
				walk(a.Value)
			}
		}
	}
	for _, n := range t.Parts {
		walk(n)
	}
	return out
}

func appendPaths(out []string, n Node) []string {
	switch v := n.(type) {
	case Path:
		out = append(out, string(v))
	case *Call:
		for _, a := range v.Args {
			out = appendPaths(out, a.Value)
		}
	}
	return out
}
