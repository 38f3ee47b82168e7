import Foundation

/// A fake server of notes whose state lives in a file, so it outlives the demo's processes the way a real server
/// outlives an app: it applies each idempotency key once, and records every request it received.
actor NotesBackend {
  /// What the server keeps.
  struct Contents: Codable, Equatable, Sendable {
    var notes: [String] = []
    /// Every request received, in order, by idempotency key, applied or not.
    var requests: [String] = []
    /// The keys applied.
    var applied: [String] = []
    /// How many times the notes were read.
    var reads = 0
    /// How many pages of the news feed were read (`nil` in a file written before the server had news).
    var newsReads: Int?
  }

  /// The server's news, ``newsPageSize`` items to a page.
  static let news = (1...5).map { "News \($0)" }
  static let newsPageSize = 2

  private let url: URL

  init(url: URL) {
    self.url = url
  }

  /// What the server keeps now.
  func contents() -> Contents {
    (try? JSONDecoder().decode(Contents.self, from: Data(contentsOf: url))) ?? Contents()
  }

  /// Starts the server with `notes`.
  func reset(notes: [String]) throws {
    try write(Contents(notes: notes))
  }

  func notes() -> [String] {
    var contents = contents()
    contents.reads += 1
    try? write(contents)
    return contents.notes
  }

  /// The page numbered `page` of the news feed (the first is 0): up to ``newsPageSize`` items, none past the last.
  func newsPage(_ page: Int) -> [String] {
    var contents = contents()
    contents.newsReads = (contents.newsReads ?? 0) + 1
    try? write(contents)
    let start = min(page * Self.newsPageSize, Self.news.count)
    return Array(Self.news[start..<min(start + Self.newsPageSize, Self.news.count)])
  }

  /// Adds `note` unless the request with `idempotencyKey` was applied already; returns the notes.
  func add(_ note: String, idempotencyKey: String) throws -> [String] {
    var contents = contents()
    contents.requests.append(idempotencyKey)
    if !contents.applied.contains(idempotencyKey) {
      contents.applied.append(idempotencyKey)
      contents.notes.append(note)
    }
    try write(contents)
    return contents.notes
  }

  private func write(_ contents: Contents) throws {
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try JSONEncoder().encode(contents).write(to: url, options: .atomic)
  }
}
