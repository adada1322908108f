// Package config holds the notes server's settings.
package config

// DefaultPort is the TCP port the server listens on when -port is not given.
const DefaultPort = 8421

// Config is what the server runs with.
type Config struct {
	Port    int
	DataDir string
}

// Default is the configuration used when no flags are given.
func Default() Config {
	return Config{Port: DefaultPort, DataDir: "notes-data"}
}
