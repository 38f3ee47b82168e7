import Shared

/// You type while peers join and leave; the room and the header show the same presence.
@MainActor
func runPresenceScenario() async -> String {
  let environment = DemoEnvironment.current
  let console = environment.console
  console.heading("Presence: peers come and go")
  @Shared(.inMemory("room/lobby")) var room = RoomPresence(user: ChatPresence(name: "Ada"))
  @Shared(.inMemory("room/lobby")) var header = RoomPresence(user: ChatPresence(name: "Ada"))

  $room.withLock { room in
    room.isLoading = false
    room.isConnected = true
  }
  $room.withLock { $0.user.isTyping = true }
  console.line("room: you are typing; the header shows isTyping = \(header.user.isTyping)")

  // Simulated peers, driven by the seeded network so runs repeat.
  let names = ["Grace", "Linus", "Margaret", "Ken"]
  var joined = 0
  var left = 0
  for step in 0..<6 {
    if environment.network.latency > .zero { try? await Task.sleep(for: environment.network.latency) }
    if step < 4 || header.peers.isEmpty || environment.network.random.nextUnit() < 0.6 {
      let name = names[step % names.count]
      if !header.peers.contains(where: { $0.id == name }) {
        $room.withLock { $0.peers.append(Peer(id: name, presence: ChatPresence(name: name))) }
        joined += 1
        console.line("room: \(name) joined (\(header.totalCount) here)")
        continue
      }
    }
    if let leaving = header.peers.first {
      $room.withLock { room in room.peers.removeAll { $0.id == leaving.id } }
      left += 1
      console.line("room: \(leaving.id) left (\(header.totalCount) here)")
    }
  }
  $room.withLock { $0.user.isTyping = false }
  return "presence: \(joined) joined, \(left) left, \(header.totalCount) in the room"
}
