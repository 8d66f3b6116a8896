// The stand-in's ParallelFor (three worker threads plus the caller) and the
// world-mutation rule that goes with it (see README.md).
#include "StandinEngine.h"
#include "StandinParallel.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace
{
	constexpr int32 NumWorkers = 3;

	thread_local bool GIsGameParallelWorker = false;
	thread_local int32 GParallelBodyDepth = 0;
	std::atomic<int32> GGameParallelForActive{0};
	std::atomic<int32> GMaxParallelThreads{0};
	std::atomic<uint64> GParallelForCalls{0};

	struct FChunk
	{
		const TFunctionRef<void(int32)>* Body = nullptr;
		int32 Begin = 0;
		int32 End = 0;
		bool bFromGameThread = false;
		std::atomic<int32>* ThreadsThatRan = nullptr;
	};

	void RunChunk(const FChunk& Chunk)
	{
		if (Chunk.Begin >= Chunk.End)
			return;
		Chunk.ThreadsThatRan->fetch_add(1);
		++GParallelBodyDepth;
		for (int32 Index = Chunk.Begin; Index < Chunk.End; ++Index)
			(*Chunk.Body)(Index);
		--GParallelBodyDepth;
	}

	class FWorkerPool
	{
	public:
		FWorkerPool()
		{
			for (int32 Index = 0; Index < NumWorkers; ++Index)
				Threads[Index] = std::thread([this, Index] { Loop(Index); });
		}

		~FWorkerPool()
		{
			{
				const std::lock_guard<std::mutex> Lock(Mutex);
				bStop = true;
			}
			Wake.notify_all();
			for (std::thread& Thread : Threads)
				Thread.join();
		}

		/** Runs Chunks[0] here and Chunks[1..Count) on workers; returns when all are done. */
		void Run(const FChunk* Chunks, int32 Count)
		{
			const std::lock_guard<std::mutex> OneAtATime(CallMutex);
			{
				const std::lock_guard<std::mutex> Lock(Mutex);
				for (int32 Index = 1; Index < Count; ++Index)
				{
					Slots[Index - 1] = Chunks[Index];
					bPending[Index - 1] = true;
				}
				Outstanding = Count - 1;
			}
			Wake.notify_all();
			RunChunk(Chunks[0]);
			std::unique_lock<std::mutex> Lock(Mutex);
			Done.wait(Lock, [this] { return Outstanding == 0; });
		}

	private:
		void Loop(int32 Slot)
		{
			std::unique_lock<std::mutex> Lock(Mutex);
			for (;;)
			{
				Wake.wait(Lock, [this, Slot] { return bStop || bPending[Slot]; });
				if (bStop)
					return;
				const FChunk Chunk = Slots[Slot];
				bPending[Slot] = false;
				Lock.unlock();
				GIsGameParallelWorker = Chunk.bFromGameThread;
				RunChunk(Chunk);
				GIsGameParallelWorker = false;
				Lock.lock();
				if (--Outstanding == 0)
					Done.notify_all();
			}
		}

		std::mutex CallMutex;
		std::mutex Mutex;
		std::condition_variable Wake;
		std::condition_variable Done;
		std::thread Threads[NumWorkers];
		FChunk Slots[NumWorkers];
		bool bPending[NumWorkers] = {};
		int32 Outstanding = 0;
		bool bStop = false;
	};

	FWorkerPool& Pool()
	{
		static FWorkerPool Instance;
		return Instance;
	}

	void RunParallelFor(int32 Num, TFunctionRef<void(int32)> Body, bool bForceSingleThread)
	{
		check(Num >= 0);
		GParallelForCalls.fetch_add(1);
		const bool bNested = GParallelBodyDepth > 0;
		const bool bGuardsWorld = IsInGameThread() && !bNested;
		if (bGuardsWorld)
			GGameParallelForActive.fetch_add(1);
		const int32 Threads = bForceSingleThread || bNested ? 1 : std::max(1, std::min(NumWorkers + 1, Num));
		std::atomic<int32> ThreadsThatRan{0};
		FChunk Chunks[NumWorkers + 1];
		for (int32 Index = 0; Index < Threads; ++Index)
		{
			Chunks[Index].Body = &Body;
			Chunks[Index].Begin = static_cast<int32>(static_cast<int64>(Num) * Index / Threads);
			Chunks[Index].End = static_cast<int32>(static_cast<int64>(Num) * (Index + 1) / Threads);
			Chunks[Index].bFromGameThread = bGuardsWorld;
			Chunks[Index].ThreadsThatRan = &ThreadsThatRan;
		}
		if (Threads == 1)
			RunChunk(Chunks[0]);
		else
			Pool().Run(Chunks, Threads);
		if (bGuardsWorld)
			GGameParallelForActive.fetch_sub(1);
		int32 Seen = GMaxParallelThreads.load();
		while (ThreadsThatRan.load() > Seen && !GMaxParallelThreads.compare_exchange_weak(Seen, ThreadsThatRan.load()))
		{
		}
	}
}

void ParallelFor(int32 Num, TFunctionRef<void(int32)> Body, EParallelForFlags Flags)
{
	RunParallelFor(Num, Body, (static_cast<int>(Flags) & static_cast<int>(EParallelForFlags::ForceSingleThread)) != 0);
}

void ParallelFor(int32 Num, TFunctionRef<void(int32)> Body, bool bForceSingleThread, bool /*bPumpRenderingThread*/)
{
	RunParallelFor(Num, Body, bForceSingleThread);
}

int32 StandinParallelForThreads()
{
	return GMaxParallelThreads.load();
}

uint64 StandinParallelForCalls()
{
	return GParallelForCalls.load();
}

bool StandinIsGameParallelForWorker()
{
	return GIsGameParallelWorker;
}

void StandinCheckWorldMutation(const char* What)
{
	if (!IsInGameThread())
		STANDIN_FATAL("%s off the game thread: only the game thread may change the world%s", What,
			GIsGameParallelWorker ? " (this is a ParallelFor worker: its body may read and trace, not change the world)" : "");
	if (GGameParallelForActive.load() > 0)
		STANDIN_FATAL("%s during a ParallelFor: the world must not change while its workers read it", What);
}
