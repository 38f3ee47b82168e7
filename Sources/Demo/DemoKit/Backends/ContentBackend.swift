/// A fake server for topics, todos and posts.
actor ContentBackend {
  private let network: Network
  private var todos: [Int: Todo] = [:]
  private var postTitles: [Int: String] = [1: "Shared state, simply", 2: "Queries without the boilerplate"]
  private var failuresBeforeSuccess = 0
  /// How many times a post was asked for, failed or not.
  private(set) var postFetches = 0

  init(network: Network) {
    self.network = network
  }

  func publish<T: Sendable>(_ payload: T, sender: String) async throws -> TopicEvent<T> {
    try await network.roundTrip("the message")
    return TopicEvent(payload: payload, sender: sender, isConfirmed: true)
  }

  func push(_ todos: [Todo]) async throws -> [Todo] {
    try await network.roundTrip("the todo sync")
    for todo in todos { self.todos[todo.id] = todo }
    return self.todos.values.sorted { $0.id < $1.id }
  }

  /// Makes the next `count` post fetches fail, whatever the failure rate.
  func failNextPostFetches(_ count: Int) {
    failuresBeforeSuccess = count
  }

  func post(_ id: Int) async throws -> Post {
    postFetches += 1
    try await network.roundTrip("post \(id)")
    if failuresBeforeSuccess > 0 {
      failuresBeforeSuccess -= 1
      throw DemoError.network("post \(id)")
    }
    return Post(id: id, title: postTitles[id] ?? "Post \(id)")
  }

  func rename(post id: Int, to title: String) async throws -> Post {
    try await network.roundTrip("the rename")
    postTitles[id] = title
    return Post(id: id, title: title)
  }
}
