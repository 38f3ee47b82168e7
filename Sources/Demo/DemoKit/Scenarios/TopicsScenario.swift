import SharedState

/// A reaction topic: optimistic sends that the server confirms, or that roll back when it drops them.
@MainActor
func runTopicsScenario() async -> String {
  let console = DemoEnvironment.current.console
  console.heading("Topics: optimistic publish with rollback")
  @Shared(.inMemory("topic/reactions")) var composer = TopicChannel<String>()
  @Shared(.inMemory("topic/reactions")) var feed = TopicChannel<String>()
  $composer.withLock { $0.isConnected = true }

  var confirmed = 0
  var rolledBack = 0
  for emoji in ["👍", "🎉", "🚀"] {
    let task = $composer.publish(emoji, as: "ada") { payload in
      console.line("composer: sending \(payload)…")
    } onSuccess: {
      confirmed += 1
    } onError: { error in
      rolledBack += 1
      console.line("composer: \(error); the feed rolls back to \(feed.latestEvent?.payload ?? "nothing")", .failure)
    }
    let shown = feed.latestEvent.map { "\($0.payload), confirmed: \($0.isConfirmed)" } ?? "nothing"
    console.line("feed: before the server answers it already shows \(shown)")
    _ = await task.result
  }
  let last = feed.latestEvent.map { "\($0.payload) (confirmed: \($0.isConfirmed))" } ?? "nothing"
  console.line("feed: latest event \(last), publish status \(feed.operation.status.rawValue)")
  return "topics: \(confirmed) confirmed, \(rolledBack) rolled back"
}
