package graph

// EncodedWrites returns how many messages of gqlgen's the WebSocket
// connections filtered encoded rather than in place (see messageHead).
func EncodedWrites() int64 { return encodedWrites.Load() }
