import SharedState

/// What a person in a room shows the others.
struct ChatPresence: Sendable, Equatable {
  var name: String
  var isTyping = false
}

/// Another person in the room.
struct Peer<T: Sendable & Equatable>: Sendable, Equatable, Identifiable {
  var id: String
  var presence: T
}

/// The room every screen shares: you, the peers, and the connection. Changed with `withLock`.
struct RoomPresence<T: Sendable & Equatable>: Sendable, Equatable {
  var user: T
  var peers: [Peer<T>] = []
  var isLoading = true
  var isConnected = false
  var storedError: HashableError?

  var error: (any Error)? { storedError?.error }
  var isError: Bool { error != nil }
  var totalCount: Int { 1 + peers.count }
  var hasPeers: Bool { !peers.isEmpty }
}
