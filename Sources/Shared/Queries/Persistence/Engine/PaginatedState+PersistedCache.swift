import Foundation

/// A paginated query's pages in the persisted cache: one JSON value per query, its pages in order, each with its
/// page identifier, and whether pages come after and before them.
///
/// ```json
/// {"pages":[{"id":0,"page":["a","b"]},{"id":1,"page":["c"]}],"hasNextPage":true,"hasPreviousPage":false}
/// ```
///
/// Only a state whose page identifiers and pages are `Codable` is persisted (the store finds out with a dynamic
/// cast, as it does for an ``OperationState``), so ``SharedReaderKey/paginatedQuery(_:initialPage:nextPage:previousPage:maxPages:options:fileID:line:_:)``
/// asks for no more than `Hashable & Sendable` identifiers.
struct PersistedPages<PageID: Codable, Page: Codable>: Codable {
  /// One loaded page and its identifier.
  struct Entry: Codable {
    var id: PageID
    var page: Page
  }

  var pages: [Entry]
  var hasNextPage: Bool
  var hasPreviousPage: Bool
}

extension PaginatedState: PersistableQueryState where PageID: Codable, Page: Codable {
  var hasValue: Bool { !pageIDs.isEmpty }

  func encodedValue(with encoder: JSONEncoder) throws -> Data? {
    guard hasValue else { return nil }
    let entries = zip(pageIDs, pages).map { PersistedPages<PageID, Page>.Entry(id: $0, page: $1) }
    return try encoder.encode(
      PersistedPages(pages: entries, hasNextPage: hasNextPage, hasPreviousPage: hasPreviousPage))
  }

  static func restoredState(from data: Data, with decoder: JSONDecoder) throws -> Self {
    let stored = try decoder.decode(PersistedPages<PageID, Page>.self, from: data)
    guard !stored.pages.isEmpty else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: [], debugDescription: "a paginated query's value with no pages"))
    }
    var state = Self()
    state.replacePages(
      ids: stored.pages.map(\.id), pages: stored.pages.map(\.page), hasNextPage: stored.hasNextPage,
      hasPreviousPage: stored.hasPreviousPage)
    state.operation.status = .success
    return state
  }

  mutating func takeValue(from other: Self) {
    replacePages(
      ids: other.pageIDs, pages: other.pages, hasNextPage: other.hasNextPage, hasPreviousPage: other.hasPreviousPage)
  }
}
