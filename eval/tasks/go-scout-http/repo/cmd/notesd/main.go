// Command notesd serves the notes API.
package main

import (
	"flag"
	"log"
	"net/http"

	"example.com/notes/internal/server"
)

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()
	srv := server.New()
	log.Fatal(http.ListenAndServe(*addr, srv.Routes()))
}
