extension AVAssetReaderOutput {
    /// The output's sample buffers as an asynchronous sequence (Avocet's addition; Apple's has only
    /// ``copyNextSampleBuffer()``). Awaiting the next buffer holds no thread: the engine makes it on
    /// its own threads and resumes the caller. The sequence ends when the output does; it throws the
    /// reader's ``AVAssetReader/error`` when reading failed, and ends (without throwing) when reading
    /// was cancelled or the awaiting task was. Iterate it after ``AVAssetReader/startReading()``;
    /// before, it ends at once and fails the reader, as ``copyNextSampleBuffer()`` does. One consumer
    /// per output: buffers go to whichever caller asks first.
    public var sampleBuffers: SampleBuffers { SampleBuffers(output: self) }

    /// The sample buffers of an output, in order (see ``AVAssetReaderOutput/sampleBuffers``).
    public struct SampleBuffers: AsyncSequence {
        public typealias Element = CMSampleBuffer
        let output: AVAssetReaderOutput

        /// Takes the buffers one at a time.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let output: AVAssetReaderOutput

            /// The next buffer, awaited without holding a thread.
            ///
            /// - Returns: The next buffer; nil at the end of the pass, when reading was cancelled, when
            ///   the awaiting task was cancelled, or before reading started (which fails the reader).
            /// - Throws: The reader's ``AVAssetReader/error`` when reading failed.
            public mutating func next() async throws -> CMSampleBuffer? {
                guard let queue = output.activeQueue() else { return try failure() }
                if let buffer = await queue.next() { return buffer }
                if case .failed(let error)? = queue.ending { throw error }
                output.passEnded(queue)
                return nil
            }

            private func failure() throws -> CMSampleBuffer? {
                if let error = output.state.withLock({ $0.reader })?.error { throw error }
                return nil
            }
        }

        /// An iterator from the output's next buffer.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(output: output) }
    }
}
