import Testing

@testable import SharedState

/// When a write appends and when it writes the whole cache again.
@Suite struct QueryCacheLogTests {
  @Test func nothingStoredIsWrittenWhole() {
    #expect(!QueryCacheLog().appends(frameBytes: 10))
  }

  @Test func aLogAppendsUntilItOutweighsTwiceTheWholeCache() {
    let whole = QueryCacheLog.minimumCompactionBytes  // Above the minimum: twice the whole cache decides.
    var log = QueryCacheLog()
    log.wroteWhole(whole)
    #expect(log.appends(frameBytes: whole))
    log.appended(whole - 10)
    #expect(log.appends(frameBytes: 10))
    #expect(!log.appends(frameBytes: 11))
    log.wroteWhole(100)
    #expect(log.bytes == 100 && log.wholeBytes == 100)
  }

  @Test func aSmallCacheAppendsUpToTheMinimum() {
    var log = QueryCacheLog()
    log.wroteWhole(100)
    #expect(log.appends(frameBytes: QueryCacheLog.minimumCompactionBytes - 100))
    #expect(!log.appends(frameBytes: QueryCacheLog.minimumCompactionBytes - 99))
  }

  @Test func aRestoredLogAppendsWithinTwiceWhatItHolds() {
    let live = QueryCacheLog.minimumCompactionBytes
    let log = QueryCacheLog(restoredBytes: live + live / 2, wholeBytes: live)
    #expect(log.appends(frameBytes: live / 2))
    #expect(!log.appends(frameBytes: live / 2 + 1))
  }

  @Test func aFailedWriteOrARemovalMakesTheNextWriteWhole() {
    var log = QueryCacheLog()
    log.wroteWhole(100)
    log.needsWholeWrite()
    #expect(!log.appends(frameBytes: 1))
    log.wroteWhole(100)
    #expect(log.appends(frameBytes: 1))
  }
}
