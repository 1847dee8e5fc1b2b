package objects

import "text/template/parse"

// walkParse calls fn for every function call in a template: the function's name and its arguments as string
// literals ("" for an argument that is not one).
func walkParse(n parse.Node, fn func(name string, args []string)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walkParse(c, fn)
		}
	case *parse.ActionNode:
		walkParse(n.Pipe, fn)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			walkParse(c, fn)
		}
	case *parse.CommandNode:
		if id, ok := n.Args[0].(*parse.IdentifierNode); ok {
			var args []string
			for _, a := range n.Args[1:] {
				s, _ := a.(*parse.StringNode)
				if s != nil {
					args = append(args, s.Text)
				} else {
					args = append(args, "")
				}
			}
			fn(id.Ident, args)
		}
		for _, a := range n.Args {
			walkParse(a, fn)
		}
	case *parse.IfNode:
		walkBranch(&n.BranchNode, fn)
	case *parse.RangeNode:
		walkBranch(&n.BranchNode, fn)
	case *parse.WithNode:
		walkBranch(&n.BranchNode, fn)
	case *parse.TemplateNode:
		walkParse(n.Pipe, fn)
	}
}

func walkBranch(b *parse.BranchNode, fn func(string, []string)) {
	walkParse(b.Pipe, fn)
	walkParse(b.List, fn)
	walkParse(b.ElseList, fn)
}
