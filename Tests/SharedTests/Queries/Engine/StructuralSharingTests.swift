import Testing

@testable import SharedState

/// What a fetched value keeps of the one it replaces, by the type of the value.
@Suite struct StructuralSharingTests {
  private final class Item: Identifiable, Equatable, Sendable {
    let id: Int
    let name: String

    init(_ id: Int, _ name: String) {
      self.id = id
      self.name = name
    }

    static func == (lhs: Item, rhs: Item) -> Bool { lhs.id == rhs.id && lhs.name == rhs.name }
  }

  /// An object that is not `Equatable`.
  private final class Opaque: Sendable {}

  @Test func anEqualArrayKeepsTheStorageOfTheOneItReplaces() {
    let old = [1, 2, 3]
    let new = [1, 2, 3]
    let shared = StructuralSharing.shared(new, replacing: old)
    #expect(shared.withUnsafeBufferPointer(\.baseAddress) == old.withUnsafeBufferPointer(\.baseAddress))
  }

  @Test func aValueThatIsNotEquatableIsWrittenAsFetched() {
    let old = Opaque()
    let new = Opaque()
    #expect(StructuralSharing.shared(new, replacing: old) === new)
  }

  @Test func aChangedListKeepsItsUnchangedElementsByIdWhereverTheyMoved() {
    let old = [Item(1, "a"), Item(2, "b"), Item(3, "c")]
    let new = [Item(3, "c"), Item(1, "a, edited"), Item(2, "b"), Item(4, "d")]
    let shared = StructuralSharing.shared(new, replacing: old)
    #expect(shared == new)
    #expect(shared[0] === old[2])
    #expect(shared[1] === new[1])
    #expect(shared[2] === old[1])
    #expect(shared[3] === new[3])
  }

  @Test func aListThatRepeatsAnIdMatchesTheFirstElementOfIt() {
    let old = [Item(1, "a"), Item(1, "b")]
    let new = [Item(1, "b"), Item(1, "a")]
    let shared = StructuralSharing.shared(new, replacing: old)
    #expect(shared[0] === new[0])  // The first 1 of old is "a".
    #expect(shared[1] === old[0])
  }

  @Test func aRefetchOfPagesKeepsEachPageEqualToTheLoadedPageOfItsIdentifier() {
    var feed = PaginatedState<Int, [Int]>()
    feed.applySuccess(.all(ids: [0, 1], pages: [[3, 2], [1]], hasNext: false, hasPrevious: false))
    let loaded = feed.pages
    let update = feed.sharing(.all(ids: [0, 1], pages: [[4, 3, 2], [1]], hasNext: false, hasPrevious: false))
    guard case .all(_, let pages, _, _) = update else {
      Issue.record("a refetch of pages stays a refetch of pages")
      return
    }
    #expect(pages == [[4, 3, 2], [1]])
    #expect(pages[1].withUnsafeBufferPointer(\.baseAddress) == loaded[1].withUnsafeBufferPointer(\.baseAddress))
  }
}
