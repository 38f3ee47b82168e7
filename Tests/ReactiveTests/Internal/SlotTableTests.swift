import Testing

@testable import Reactive

@Suite struct SlotTableTests {
  @Test func handlesStayValidUntilRemoved() {
    var table = SlotTable<String>()
    let a = table.insert("a")
    let b = table.insert("b")
    #expect(table.remove(a) == "a")
    #expect(table.remove(a) == nil)
    let c = table.insert("c")
    #expect(table.withElement(b) { $0 } == "b")
    #expect(table.withElement(c) { $0 } == "c")
    #expect(table.withElement(a) { $0 } == nil)
    #expect(table.count == 2)
  }

  @Test func aStaleHandleNeverNamesANewerElement() {
    var table = SlotTable<String>()
    let old = table.insert("old")
    table.remove(old)
    #expect(table.isEmpty)
    let new = table.insert("new")
    #expect(table.remove(old) == nil)
    #expect(table.withElement(new) { $0 } == "new")
  }
}
