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
///
/// It runs no operation, so it has no operation status: its flags say what they are about (connecting, the last
/// presence error), and the error is kept by identity in a `HashableError`, so the room stays `Equatable`.
struct RoomPresence<T: Sendable & Equatable>: Sendable, Equatable {
  var user: T
  var peers: [Peer<T>] = []
  var isConnecting = true
  var isConnected = false
  /// The last error the presence server reported, or `nil`.
  var lastPresenceError: HashableError?

  var totalCount: Int { 1 + peers.count }
  var hasPeers: Bool { !peers.isEmpty }
}
