import SharedState

/// You type while peers join and leave; the room and the header show the same presence.
@MainActor
func runPresenceScenario() async -> String {
  let environment = DemoEnvironment.current
  let console = environment.console
  console.heading("Presence: peers come and go")
  @Shared(.inMemory("room/lobby")) var room = RoomPresence(user: ChatPresence(name: "Ada"))
  @Shared(.inMemory("room/lobby")) var header = RoomPresence(user: ChatPresence(name: "Ada"))

  $room.withLock { room in
    room.isConnecting = false
    room.isConnected = true
  }
  $room.withLock { $0.user.isTyping = true }
  console.line("room: you are typing; the header shows isTyping = \(header.user.isTyping)")

  // Peers come and go as the presence server reports them; the room applies each report under its lock.
  var joined = 0
  var left = 0
  for _ in 0..<6 {
    do {
      switch try await environment.presence.nextEvent() {
      case .joined(let name):
        $room.withLock { $0.peers.append(Peer(id: name, presence: ChatPresence(name: name))) }
        joined += 1
        console.line("room: \(name) joined (\(header.totalCount) here)")
      case .left(let name):
        $room.withLock { room in room.peers.removeAll { $0.id == name } }
        left += 1
        console.line("room: \(name) left (\(header.totalCount) here)")
      }
    } catch {
      $room.withLock { $0.lastPresenceError = HashableError(error) }
      console.line(
        "room: \(error); the header shows the error too: \(header.lastPresenceError != nil)", .failure)
    }
  }
  $room.withLock { $0.user.isTyping = false }
  return "presence: \(joined) joined, \(left) left, \(header.totalCount) in the room"
}
