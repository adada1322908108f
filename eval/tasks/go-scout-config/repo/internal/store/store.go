// Package store keeps short codes in memory.
package store

import "sync"

// Store maps short codes to URLs.
type Store struct {
	mu    sync.RWMutex
	links map[string]string
}

// New returns an empty store.
func New() *Store { return &Store{links: map[string]string{}} }

// Add saves url under code.
func (s *Store) Add(code, url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.links[code] = url
}

// Lookup returns the URL saved under code.
func (s *Store) Lookup(code string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	url, ok := s.links[code]
	return url, ok
}
