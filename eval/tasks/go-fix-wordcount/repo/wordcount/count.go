// Package wordcount counts word frequencies.
package wordcount

import (
	"sort"
	"strings"
	"unicode"
)

// Entry is one word and how often it occurs.
type Entry struct {
	Word  string
	Count int
}

// Count returns how often each word occurs in text. Words are compared without
// regard to case, and punctuation around a word is ignored.
func Count(text string) map[string]int {
	counts := map[string]int{}
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if w == "" {
			continue
		}
		counts[w]++
	}
	return counts
}

// Top returns the n most frequent words, most frequent first; ties are sorted by word.
func Top(counts map[string]int, n int) []Entry {
	entries := make([]Entry, 0, len(counts))
	for w, c := range counts {
		entries = append(entries, Entry{w, c})
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].Count != entries[j].Count {
			return entries[i].Count > entries[j].Count
		}
		return entries[i].Word < entries[j].Word
	})
	if len(entries) > n {
		entries = entries[:n]
	}
	return entries
}
