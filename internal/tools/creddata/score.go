package main

import (
	"slices"
	"strings"
)

// toolScore is one tool's findings judged against the labels.
type toolScore struct {
	name     string
	findings int                  // findings read (credentials on lines)
	found    []bool               // per labels.units
	isTrue   map[lineKey]bool     // flagged lines inside a True label
	isFalse  map[lineKey]bool     // flagged lines outside any True or UUID label
	aside    int                  // flagged lines of UUID rows, not counted
	onFalse  int                  // of isFalse: lines labelled F or X
	byRule   map[string][]finding // false lines per rule
	trueRule map[string]int       // true lines per rule
	byValue  map[string][]finding // false lines per secret value (fingerprint), when the tool says
	rulesAt  map[lineKey][]string // the rules that flagged each line
}

// score judges fs: a unit is found when a finding starts on one of its
// lines; a flagged line is true inside a True label, aside on a UUID row's
// line, false anywhere else. Flagged lines are counted once per file:line.
func score(name string, l *labels, fs []finding) *toolScore {
	s := &toolScore{
		name: name, findings: len(fs), found: make([]bool, len(l.units)),
		isTrue: map[lineKey]bool{}, isFalse: map[lineKey]bool{}, byRule: map[string][]finding{}, trueRule: map[string]int{},
		byValue: map[string][]finding{}, rulesAt: map[lineKey][]string{},
	}
	flagged := map[lineKey]bool{}
	asideLines := map[lineKey]bool{}
	ruleLines, valueLines := lineSets{}, lineSets{}
	for _, f := range fs {
		k := lineKey{f.path, f.line}
		flagged[k] = true
		if !slices.Contains(s.rulesAt[k], f.rule) {
			s.rulesAt[k] = append(s.rulesAt[k], f.rule)
		}
		switch {
		case l.isTrue[k]:
			s.isTrue[k] = true
			if ruleLines.add(f.rule, k) {
				s.trueRule[f.rule]++
			}
		case l.isAside[k]:
			asideLines[k] = true
		default:
			s.isFalse[k] = true
			if ruleLines.add(f.rule, k) {
				s.byRule[f.rule] = append(s.byRule[f.rule], f)
			}
			if f.value != "" && valueLines.add(f.value, k) {
				s.byValue[f.value] = append(s.byValue[f.value], f)
			}
		}
	}
	s.aside = len(asideLines)
	for k := range s.isFalse {
		if l.isFalse[k] {
			s.onFalse++
		}
	}
	for i, u := range l.units {
		for n := u.start; n <= u.end && !s.found[i]; n++ {
			s.found[i] = flagged[lineKey{u.path, n}]
		}
	}
	for _, fs := range s.byRule {
		slices.SortFunc(fs, func(a, b finding) int {
			if c := strings.Compare(a.path, b.path); c != 0 {
				return c
			}
			return a.line - b.line
		})
	}
	return s
}

// lineSets holds, per rule or value, the lines already counted for it.
type lineSets map[string]map[lineKey]bool

// add records k under name and says whether it was new.
func (ls lineSets) add(name string, k lineKey) bool {
	if ls[name] == nil {
		ls[name] = map[lineKey]bool{}
	}
	if ls[name][k] {
		return false
	}
	ls[name][k] = true
	return true
}

// rulesOn lists the rules that flagged any line of u.
func (s *toolScore) rulesOn(u unit) []string {
	var rules []string
	for n := u.start; n <= u.end; n++ {
		for _, r := range s.rulesAt[lineKey{u.path, n}] {
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
	}
	return rules
}

// recall is found units over all units.
func (s *toolScore) recall() (found, all int) {
	for _, ok := range s.found {
		if ok {
			found++
		}
	}
	return found, len(s.found)
}

// precision is true flagged lines over all counted flagged lines.
func (s *toolScore) precision() (trueLines, flagged int) {
	return len(s.isTrue), len(s.isTrue) + len(s.isFalse)
}

// catCount is one Category's positives and, per tool, how many were found.
type catCount struct {
	category string
	units    []int // indexes into labels.units
	found    []int // per tool
}

// byCategory groups units by each Category value they carry (a line with a
// Password row and a Secret row counts under both), most positives first.
func byCategory(l *labels, tools []*toolScore) []*catCount {
	m := map[string]*catCount{}
	for i, u := range l.units {
		for _, c := range u.categories {
			cc := m[c]
			if cc == nil {
				cc = &catCount{category: c, found: make([]int, len(tools))}
				m[c] = cc
			}
			cc.units = append(cc.units, i)
			for t, s := range tools {
				if s.found[i] {
					cc.found[t]++
				}
			}
		}
	}
	out := make([]*catCount, 0, len(m))
	for _, cc := range m {
		out = append(out, cc)
	}
	slices.SortFunc(out, func(a, b *catCount) int {
		if len(a.units) != len(b.units) {
			return len(b.units) - len(a.units)
		}
		return strings.Compare(a.category, b.category)
	})
	return out
}
