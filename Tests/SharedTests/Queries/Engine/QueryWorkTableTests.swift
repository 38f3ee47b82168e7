import Testing

@testable import SharedState

/// The table a query record keeps its units of work in behaves as a dictionary, whatever the order of its changes.
@Suite struct QueryWorkTableTests {
  private typealias Work = QueryWork

  /// One change to the table.
  private enum Change: CaseIterable {
    case insert(UInt64)
    case remove(UInt64)

    static let allCases: [Change] = [1, 2, 3].flatMap { [Change.insert($0), .remove($0)] }
  }

  @Test func matchesADictionaryInEveryOrderOfChanges() {
    var sequences = 0
    func search(_ table: QueryWorkTable, _ model: [UInt64: Work], depth: Int) {
      sequences += 1
      for id: UInt64 in [1, 2, 3, 4] { #expect(table[id] === model[id]) }
      #expect(table.isEmpty == model.isEmpty)
      guard depth < 5 else { return }
      for change in Change.allCases {
        var table = table
        var model = model
        switch change {
        case .insert(let id):
          let work = Work()
          table.insert(work, for: id)
          model[id] = work
        case .remove(let id):
          #expect(table.remove(id) === model.removeValue(forKey: id))
        }
        search(table, model, depth: depth + 1)
      }
    }
    search(QueryWorkTable(), [:], depth: 0)
    // Every sequence of up to five of the six changes: 1 + 6 + 36 + 216 + 1,296 + 7,776.
    #expect(sequences == 9_331)
  }

  @Test func copiesAreIndependent() {
    var table = QueryWorkTable()
    let first = Work()
    let second = Work()
    table.insert(first, for: 1)
    table.insert(second, for: 2)
    var copy = table
    #expect(copy.remove(1) === first)
    #expect(table[1] === first)
    #expect(copy[1] == nil)
    #expect(copy[2] === second)
  }
}
