/// The post of the documentation's examples, shared by the snippets that compile them (an example that needs more
/// of a post declares its own beside it).
struct Post: Sendable, Equatable, Hashable, Codable {
  var id: Int
  var title: String
}
