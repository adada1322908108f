package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
	"github.com/ouroagent/ouro/workflow"
)

// prepared is a script checked and ready to compile: its meta and its body wrapped in an
// async function (so top-level await and return work), with `export` blanked out.
type prepared struct {
	meta    workflow.Meta
	program *ast.Program
}

const wrapHead = "(async function __workflow__() {"
const wrapTail = "\n})"

// prepare checks that src begins with `export const meta = {…}` as a pure literal (no
// calls, no variables, no computed keys: nothing that runs) and parses the rest. Nothing
// of the script runs here.
func prepare(name, src string) (prepared, error) {
	if len(src) > workflow.MaxScriptBytes {
		return prepared{}, fmt.Errorf("the script is %d bytes; the limit is %d (512 KiB)", len(src), workflow.MaxScriptBytes)
	}
	at := skipSpaceAndComments(src)
	const head = "export const meta"
	if !strings.HasPrefix(src[at:], head) {
		return prepared{}, fmt.Errorf("a workflow script must begin with `export const meta = { name, description, … }` (a pure object literal); %s begins otherwise", name)
	}
	// Blank `export` (keeping every offset and line) and wrap the whole in an async function.
	body := src[:at] + "      " + src[at+len("export"):]
	prog, err := goja.Parse(name, wrapHead+body+wrapTail, parser.WithDisableSourceMaps)
	if err != nil {
		return prepared{}, fmt.Errorf("the script does not parse: %v", err)
	}
	fn := wrapped(prog)
	if fn == nil || len(fn.Body.List) == 0 {
		return prepared{}, fmt.Errorf("the script does not parse as a workflow")
	}
	decl, ok := fn.Body.List[0].(*ast.LexicalDeclaration)
	if !ok || decl.Token != token.CONST || len(decl.List) != 1 {
		return prepared{}, fmt.Errorf("a workflow script must begin with exactly one `export const meta = {…}`")
	}
	id, ok := decl.List[0].Target.(*ast.Identifier)
	if !ok || id.Name != "meta" {
		return prepared{}, fmt.Errorf("a workflow script must begin with `export const meta = {…}`")
	}
	obj, ok := decl.List[0].Initializer.(*ast.ObjectLiteral)
	if !ok {
		return prepared{}, fmt.Errorf("meta must be an object literal `{ name, description, … }`")
	}
	if err := pureLiteral(obj); err != nil {
		return prepared{}, fmt.Errorf("meta must be a pure literal (strings, numbers, booleans, null, arrays and objects only; nothing that runs): %v", err)
	}
	meta, err := literalMeta(prog, obj, wrapHead+body+wrapTail)
	if err != nil {
		return prepared{}, err
	}
	return prepared{meta: meta, program: prog}, nil
}

func wrapped(prog *ast.Program) *ast.FunctionLiteral {
	if len(prog.Body) != 1 {
		return nil
	}
	es, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	fn, ok := es.Expression.(*ast.FunctionLiteral)
	if !ok {
		return nil
	}
	return fn
}

// pureLiteral walks e and refuses anything that is not a literal value.
func pureLiteral(e ast.Expression) error {
	switch v := e.(type) {
	case *ast.StringLiteral, *ast.NumberLiteral, *ast.BooleanLiteral, *ast.NullLiteral:
		return nil
	case *ast.TemplateLiteral:
		if v.Tag != nil || len(v.Expressions) > 0 {
			return fmt.Errorf("a template with ${…} or a tag")
		}
		return nil
	case *ast.UnaryExpression:
		if v.Operator == token.MINUS || v.Operator == token.PLUS {
			if _, ok := v.Operand.(*ast.NumberLiteral); ok {
				return nil
			}
		}
		return fmt.Errorf("an operator %s", v.Operator)
	case *ast.ArrayLiteral:
		for _, x := range v.Value {
			if x == nil {
				return fmt.Errorf("an array with holes")
			}
			if err := pureLiteral(x); err != nil {
				return err
			}
		}
		return nil
	case *ast.ObjectLiteral:
		for _, p := range v.Value {
			kp, ok := p.(*ast.PropertyKeyed)
			if !ok || kp.Computed || kp.Kind != ast.PropertyKindValue {
				return fmt.Errorf("a property that is not `key: value` (shorthand, spread, computed key, method or accessor)")
			}
			switch kp.Key.(type) {
			case *ast.StringLiteral, *ast.NumberLiteral:
			default:
				return fmt.Errorf("a computed property key")
			}
			if err := pureLiteral(kp.Value); err != nil {
				return err
			}
		}
		return nil
	case *ast.Identifier:
		return fmt.Errorf("a name (%s)", v.Name)
	case *ast.CallExpression:
		return fmt.Errorf("a call")
	default:
		return fmt.Errorf("an expression (%T)", e)
	}
}

// literalMeta evaluates the checked literal on a bare runtime (it is only data, so
// nothing can run) and decodes it.
func literalMeta(prog *ast.Program, obj *ast.ObjectLiteral, src string) (workflow.Meta, error) {
	f := prog.File
	text := literalText(f, obj, src)
	vm := goja.New()
	v, err := vm.RunString("JSON.stringify(" + text + ")")
	if err != nil {
		return workflow.Meta{}, fmt.Errorf("meta: %v", err)
	}
	var m workflow.Meta
	if err := json.Unmarshal([]byte(v.String()), &m); err != nil {
		return workflow.Meta{}, fmt.Errorf("meta has a field of the wrong type: %v (name, description and whenToUse are strings; phases is a list of {title, detail?, model?})", err)
	}
	if strings.TrimSpace(m.Name) == "" {
		return workflow.Meta{}, fmt.Errorf("meta.name is missing: give the workflow a name")
	}
	return m, nil
}

func literalText(f *file.File, obj *ast.ObjectLiteral, src string) string {
	start, end := int(obj.Idx0())-1, int(obj.Idx1())-1
	if f != nil {
		start, end = int(obj.Idx0())-f.Base(), int(obj.Idx1())-f.Base()
	}
	return src[start:end]
}

// skipSpaceAndComments returns the offset of the first token of src.
func skipSpaceAndComments(src string) int {
	i := 0
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return len(src)
			}
			i += j + 1
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return len(src)
			}
			i += j + 4
		case strings.HasPrefix(src[i:], "\ufeff"):
			i += 3
		default:
			return i
		}
	}
	return i
}
