/// A fake server for topics, todos and posts.
actor ContentBackend {
  private let network: Network
  private var todos: [Int: Todo] = [:]
  private var postTitles: [Int: String] = [1: "Shared state, simply", 2: "Queries without the boilerplate"]
  private var failuresBeforeSuccess = 0
  /// The feed's posts, newest first, three to a page.
  private var feedPosts = (1...5).reversed().map { Post(id: 100 + $0, title: "Feed post \($0)") }
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

  /// One page of the feed, three posts to a page, newest first.
  func feed(page: Int) async throws -> [Post] {
    try await network.roundTrip("feed page \(page)")
    return Array(feedPosts.dropFirst(page * 3).prefix(3))
  }

  /// Publishes a post at the top of the feed; a title that is empty is refused.
  func publish(_ post: Post) async throws -> Post {
    try await network.roundTrip("the new post")
    guard !post.title.isEmpty else { throw DemoError.refused("a post without a title") }
    feedPosts.insert(post, at: 0)
    return post
  }

  func rename(post id: Int, to title: String) async throws -> Post {
    try await network.roundTrip("the rename")
    postTitles[id] = title
    return Post(id: id, title: title)
  }
}
