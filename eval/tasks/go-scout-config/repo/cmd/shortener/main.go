// Command shortener serves short links.
package main

import (
	"log"
	"net/http"

	"example.com/shortener/internal/config"
	"example.com/shortener/internal/store"
)

func main() {
	cfg, err := config.Load()
	if err != nil {
		log.Fatal(err)
	}
	s := store.New()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{code}", func(w http.ResponseWriter, r *http.Request) {
		url, ok := s.Lookup(r.PathValue("code"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, url, http.StatusFound)
	})
	log.Printf("listening on %s", cfg.Addr())
	log.Fatal(http.ListenAndServe(cfg.Addr(), mux))
}
