import Foundation
import SharedState

/// A live view: several holders of the same keys, redrawn in place while background tasks change them.
///
/// It draws a frame every 100 ms of the environment's clock, for `duration` seconds (a frame for each 100 ms begun),
/// or until the program is stopped.
@MainActor
func runWatch(duration: Double?) async -> String {
  let environment = DemoEnvironment.current
  let console = environment.console
  let clock = environment.clock
  @Shared(.inMemory("watch/counter")) var counter = 0
  @Shared(.inMemory("watch/room")) var room = RoomPresence(user: ChatPresence(name: "you"))
  @Shared(.inMemory("watch/job")) var job = OperationState<Int>()
  let counterHolder = Shared(wrappedValue: 0, .inMemory("watch/counter"))
  let roomHolder = Shared(wrappedValue: RoomPresence(user: ChatPresence(name: "you")), .inMemory("watch/room"))
  let jobHolder = Shared(wrappedValue: OperationState<Int>(), .inMemory("watch/job"))

  let random = environment.network.random
  let workers = [
    Task.detached {
      while !Task.isCancelled {
        counterHolder.withLock { $0 += 1 }
        try? await clock.sleep(for: .milliseconds(50))
      }
    },
    Task.detached {
      let names = ["Grace", "Linus", "Margaret", "Ken", "Barbara"]
      while !Task.isCancelled {
        let name = names[random.next(in: 0...(names.count - 1))]
        roomHolder.withLock { room in
          if let index = room.peers.firstIndex(where: { $0.id == name }) {
            room.peers.remove(at: index)
          } else {
            room.peers.append(Peer(id: name, presence: ChatPresence(name: name)))
          }
        }
        try? await clock.sleep(for: .milliseconds(400))
      }
    },
    Task.detached {
      var round = 0
      while !Task.isCancelled {
        round += 1
        let value = round
        _ = await jobHolder.run(isolation: nil) {
          try await clock.sleep(for: .milliseconds(700))
          return value
        }.result
      }
    },
  ]
  let frameLimit = duration.map { Int(($0 * 10).rounded(.up)) }
  var frames = 0
  let height = 5
  while frameLimit.map({ frames < $0 }) ?? true {
    let lines = [
      "counter      \(counter)   (a second holder reads \(counterHolder.wrappedValue))",
      "room         \(room.totalCount) here: you, \(room.peers.map(\.id).joined(separator: ", "))",
      "job          \(job.status.rawValue)\(job.value.map { ", last result \($0)" } ?? "")",
      "frame        \(frames)",
      "             Ctrl-C to stop",
    ]
    if console.echoes {
      if frames > 0 { print("\u{1B}[\(height)A", terminator: "") }
      for line in lines { print("\u{1B}[2K" + line) }
    }
    frames += 1
    try? await clock.sleep(for: .milliseconds(100))
  }
  for worker in workers { worker.cancel() }
  return "watch: \(frames) frames, counter at \(counter)"
}
