// A snippet of the documentation that states a result, run as a test.
import Foundation
import SharedState
import Testing

/// QueryKey's documentation, run as tests so that its claims are known to hold.
@Suite struct QueryKeySnippetTests {
  @Test func runtimeValuesAndLiteralsNameKeys() {
    let id = 42
    let author = UUID()
    let post: QueryKey = ["posts", id]  // a String and an Int
    let comments: QueryKey = ["posts", id, "comments"]
    let byAuthor: QueryKey = ["posts", "by", author]  // any Hashable & Sendable value
    assert(post.hasPrefix(["posts"]))
    assert(comments.hasPrefix(post))
    assert(!byAuthor.hasPrefix(post))
    #expect(post == ["posts", 42])
  }

  @Test func anArrayOfValuesIsAKey() {
    let folders: [String] = ["posts", "drafts"]  // any array of hashable, sendable values
    let key = QueryKey(folders)
    #expect(key == ["posts", "drafts"])
  }

  @Test func aRuntimeValueIsAPart() {
    let id = 42
    let key: QueryKey = ["posts", id]
    #expect(key == ["posts", 42])
  }

  @Test func aPrefixMatchesTypesAndValues() {
    let key: QueryKey = ["posts", 42, "comments"]
    assert(key.hasPrefix(["posts", 42]))
    assert(!key.hasPrefix(["posts", "42"]))  // a String is not an Int
    #expect(key.hasPrefix(["posts", 42, "comments"]))
  }
}
