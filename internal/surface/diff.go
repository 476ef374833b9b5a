package surface

import (
	"fmt"
	"io"
	"strings"
)

// maxDiffCells bounds the work of one line diff (lines of a × lines of
// b); beyond it both texts are shown whole.
const maxDiffCells = 4 << 20

// diffContext is how many unchanged lines are shown around a change.
const diffContext = 2

// LineDiff writes the lines of a and b that differ, "-" for a's and "+"
// for b's, with a few unchanged lines around them; indent starts each line.
func LineDiff(w io.Writer, a, b, indent string) {
	x := strings.Split(strings.TrimSuffix(a, "\n"), "\n")
	y := strings.Split(strings.TrimSuffix(b, "\n"), "\n")
	if len(x)*len(y) > maxDiffCells {
		for _, l := range x {
			fmt.Fprintf(w, "%s- %s\n", indent, l)
		}
		for _, l := range y {
			fmt.Fprintf(w, "%s+ %s\n", indent, l)
		}
		return
	}
	// lcs[i][j] is the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i]})
			i++
			j++
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i]})
			i++
		default:
			ops = append(ops, op{'+', y[j]})
			j++
		}
	}
	// Show the changes and diffContext lines around each.
	show := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		for c := max(0, k-diffContext); c <= min(len(ops)-1, k+diffContext); c++ {
			show[c] = true
		}
	}
	skipped := false
	for k, o := range ops {
		if !show[k] {
			if !skipped {
				fmt.Fprintf(w, "%s  ...\n", indent)
				skipped = true
			}
			continue
		}
		skipped = false
		fmt.Fprintf(w, "%s%c %s\n", indent, o.kind, o.line)
	}
}
