import Foundation
import TestSupport
import Testing

@testable import SharedState

/// A key part of the app's own: any hashable, sendable value.
private struct Slug: Hashable, Sendable {
  var text: String
}

private enum Section: Hashable, Sendable {
  case drafts
  case published
}

/// Classes as key parts: an instance of a subclass is not a part equal to one of its superclass.
private class Animal: Hashable, @unchecked Sendable {
  let name: String
  init(name: String) { self.name = name }
  static func == (lhs: Animal, rhs: Animal) -> Bool { lhs.name == rhs.name }
  func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

private final class Cat: Animal, @unchecked Sendable {}

@Suite(.freshRegistry) struct QueryKeyTests {
  @Test func runtimeValuesMakeTheSameKeysAsLiterals() {
    let id = 42
    let name = "posts"
    #expect(QueryKey([name, id]) == ["posts", 42])
    let key: QueryKey = [name, id, "comments"]
    #expect(key == ["posts", 42, "comments"])
    #expect(key.hashValue == QueryKey(["posts", 42, "comments"]).hashValue)
    #expect(key.description == "[\"posts\", 42, \"comments\"]")
  }

  @Test func anyHashableSendableValueIsAPart() {
    let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    let slug = Slug(text: "hello")
    let section = Section.drafts
    let height = 1.5
    let key: QueryKey = ["posts", uuid, slug, section, height]
    let same = UUID(uuidString: uuid.uuidString)!
    #expect(key == ["posts", same, Slug(text: "hello"), Section.drafts, 1.5])
    #expect(key.hashValue == QueryKey(["posts", same, Slug(text: "hello"), Section.drafts, 1.5]).hashValue)
    #expect(key != ["posts", UUID(), slug, section, height])
    #expect(key != ["posts", uuid, Slug(text: "other"), section, height])
    #expect(key != ["posts", uuid, slug, Section.published, height])
    #expect(key.hasPrefix(["posts", uuid]))
    #expect(key.description.hasPrefix("[\"posts\", E621E1F8-C36C-495A-93FC-0C247A3E6E5F, "))
  }

  @Test func partsOfDifferentTypesAreNeverEqual() {
    #expect(QueryKey([1]) != QueryKey(["1"]))
    #expect(QueryKey([1]) != QueryKey([Int64(1)]))
    #expect(QueryKey([1]) != QueryKey([1.0]))
    #expect(!QueryKey(["posts", 42]).hasPrefix(["posts", "42"]))
    let animal = Animal(name: "Tom")
    let cat = Cat(name: "Tom")
    #expect(animal == cat)  // The class's own `==` says so; as key parts they differ, both ways.
    #expect(QueryKey([animal]) != QueryKey([cat]))
    #expect(QueryKey([cat]) != QueryKey([animal]))
    #expect(QueryKey([cat]) == QueryKey([Cat(name: "Tom")]))
  }

  @Test func anOptionalPartIsItsWrappedValue() {
    let id: Int? = 42
    let nested: Int?? = 42
    let key: QueryKey = ["posts", id]
    #expect(key == ["posts", 42])
    #expect(QueryKey(["posts", nested]) == ["posts", 42])
    #expect(key.hashValue == QueryKey(["posts", 42]).hashValue)
    #expect(key.description == "[\"posts\", 42]")
    #expect(key.parts[1] is Int)
  }

  @Test func aNilPartEqualsOnlyANilPart() {
    let missingID: Int? = nil
    let missingName: String? = nil
    let key: QueryKey = ["posts", missingID]
    #expect(key == ["posts", missingName])
    #expect(key.hashValue == QueryKey(["posts", missingName]).hashValue)
    #expect(key != ["posts", 0])
    #expect(key != ["posts"])
    #expect(key.description == "[\"posts\", nil]")
  }

  @Test func keysMatchByPrefix() {
    let key: QueryKey = ["posts", 42, "comments"]
    #expect(key.hasPrefix([]))
    #expect(key.hasPrefix(["posts"]))
    #expect(key.hasPrefix(["posts", 42]))
    #expect(key.hasPrefix(key))
    #expect(!key.hasPrefix(["posts", "42"]))
    #expect(!key.hasPrefix(["posts", 42, "comments", 1]))
    #expect(!QueryKey(["posts"]).hasPrefix(key))
    #expect(!key.hasPrefix(["comments"]))
  }

  @Test func keysWorkAsDictionaryKeys() {
    let id = 7
    var names: [QueryKey: String] = [["posts", 7]: "seven", ["posts", "7"]: "text seven"]
    #expect(names[["posts", id]] == "seven")
    #expect(names[["posts", String(id)]] == "text seven")
    names[["posts", Int64(id)]] = "wide seven"
    #expect(names.count == 3)
  }
}
