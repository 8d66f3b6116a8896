// Stand-in for the parts of Unreal's Core module the glue uses: integer and
// character types (TCHAR is char16_t, as on Linux), checks, the reflection
// macros (GENERATED_BODY expands what the test's mini-UHT generated), maths
// (StandinMath.h), containers, strings and logging (StandinString.h), the
// HAL bits, FApp, trace scopes and the watchdog's clock. See README.md.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

// ------------------------------------------------------------------ types

typedef signed char int8;
typedef unsigned char uint8;
typedef short int16;
typedef unsigned short uint16;
typedef int int32;
typedef unsigned int uint32;
typedef long long int64;          // as Unreal: `long long`, so %lld / %llu are right
typedef unsigned long long uint64;
typedef char ANSICHAR;
typedef size_t SIZE_T;
#if defined(STANDIN_WCHAR_TCHAR)
typedef wchar_t TCHAR;            // as Unreal on Windows
#define TEXT(x) L##x
#else
typedef char16_t TCHAR;           // as Unreal on Linux
#define TEXT(x) u##x
#endif
typedef char16_t UTF16CHAR;
typedef decltype(nullptr) TYPE_OF_NULLPTR;

// The engine version (Runtime/Launch/Resources/Version.h): UE 4.27 in the
// float-vector build, UE 5.3 otherwise.
#if defined(STANDIN_UE4_FLOAT_MATH)
#define ENGINE_MAJOR_VERSION 4
#define ENGINE_MINOR_VERSION 27
#else
#define ENGINE_MAJOR_VERSION 5
#define ENGINE_MINOR_VERSION 3
#endif

template <class T>
using TUniquePtr = std::unique_ptr<T>;
template <class T, class... Args>
TUniquePtr<T> MakeUnique(Args&&... InArgs)
{
	return TUniquePtr<T>(new T(std::forward<Args>(InArgs)...));
}

#define PLATFORM_WINDOWS 0
#define PLATFORM_LINUX 1
#define PLATFORM_MAC 0
#define PLATFORM_LITTLE_ENDIAN 1

#define FORCEINLINE inline
#define FORCENOINLINE __attribute__((noinline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PREPROCESSOR_JOIN_INNER(x, y) x##y
#define PREPROCESSOR_JOIN(x, y) PREPROCESSOR_JOIN_INNER(x, y)
#ifndef CARLASERVERGLUE_API
#define CARLASERVERGLUE_API
#endif

// -------------------------------------------------- reflection (UHT) macros

#define UCLASS(...)
#define USTRUCT(...)
#define UENUM(...)
#define UINTERFACE(...)
#define UPROPERTY(...)
#define UFUNCTION(...)
#define UPARAM(...)
#define UMETA(...)
#define UDELEGATE(...)
// As Unreal's ObjectMacros.h: GENERATED_BODY() on line L of a header whose
// generated header set CURRENT_FILE_ID to F expands to F_L_GENERATED_BODY,
// which the mini-UHT (tests/unreal_glue/uht.rs) wrote into that generated
// header. Hence "the generated header must be the last include".
#define BODY_MACRO_COMBINE_INNER(A, B, C, D) A##B##C##D
#define BODY_MACRO_COMBINE(A, B, C, D) BODY_MACRO_COMBINE_INNER(A, B, C, D)
#define GENERATED_BODY(...) BODY_MACRO_COMBINE(CURRENT_FILE_ID, _, __LINE__, _GENERATED_BODY);
#define GENERATED_UCLASS_BODY(...) BODY_MACRO_COMBINE(CURRENT_FILE_ID, _, __LINE__, _GENERATED_BODY_LEGACY);
#define GENERATED_USTRUCT_BODY(...) GENERATED_BODY()

// ---------------------------------------------------------------- checks

[[noreturn]] void StandinFatal(const char* File, int Line, const char* What);
/** A stand-in rule was broken: prints the message (printf-style, UTF-8) and aborts. */
[[noreturn]] void StandinFatalf(const char* File, int Line, const char* Format, ...) __attribute__((format(printf, 3, 4)));
#define STANDIN_FATAL(...) StandinFatalf(__FILE__, __LINE__, __VA_ARGS__)

#define check(x)                                                               \
	do                                                                         \
	{                                                                          \
		if (!(x))                                                              \
			StandinFatal(__FILE__, __LINE__, #x);                              \
	} while (0)
#define verify(x) check(x)
#define checkNoEntry() StandinFatal(__FILE__, __LINE__, "checkNoEntry()")
/** Disabled, as in Development builds (the expression is not evaluated). */
#define checkSlow(x)                                                           \
	do                                                                         \
	{                                                                          \
		(void)sizeof(!(x));                                                    \
	} while (0)
// checkf / ensure / ensureMsgf take a TEXT format: StandinString.h.

// ------------------------------------------------------------------- math

#include "StandinMath.h"

struct FMemory
{
	static void* Memcpy(void* Dest, const void* Src, size_t Count) { return std::memcpy(Dest, Src, Count); }
	static void* Memzero(void* Dest, size_t Count) { return std::memset(Dest, 0, Count); }
	static void* Memset(void* Dest, uint8 Char, size_t Count) { return std::memset(Dest, Char, Count); }
};

// ------------------------------------------------------------- containers

/** Unreal's TArray over std::vector (int32 sizes and indices). */
template <typename T>
class TArray
{
public:
	typedef T ElementType;

	TArray() = default;
	TArray(std::initializer_list<T> Init) : Items(Init) {}
	TArray(const T* Ptr, int32 Count) : Items(Ptr, Ptr + Count) {}

	int32 Num() const { return static_cast<int32>(Items.size()); }
	bool IsEmpty() const { return Items.empty(); }
	bool IsValidIndex(int32 Index) const { return Index >= 0 && Index < Num(); }
	T* GetData() { return Items.data(); }
	const T* GetData() const { return Items.data(); }
	T& operator[](int32 Index)
	{
		check(IsValidIndex(Index));
		return Items[static_cast<size_t>(Index)];
	}
	const T& operator[](int32 Index) const
	{
		check(IsValidIndex(Index));
		return Items[static_cast<size_t>(Index)];
	}
	T& Last() { return (*this)[Num() - 1]; }
	const T& Last() const { return (*this)[Num() - 1]; }
	T& Top() { return Last(); }
	T Pop()
	{
		T Item = Last();
		Items.pop_back();
		return Item;
	}

	int32 Add(const T& Item)
	{
		Items.push_back(Item);
		return Num() - 1;
	}
	int32 Add(T&& Item)
	{
		Items.push_back(std::move(Item));
		return Num() - 1;
	}
	template <typename... Args>
	int32 Emplace(Args&&... Arguments)
	{
		Items.emplace_back(std::forward<Args>(Arguments)...);
		return Num() - 1;
	}
	int32 AddUnique(const T& Item)
	{
		const int32 Found = Find(Item);
		return Found >= 0 ? Found : Add(Item);
	}
	/** New elements are value-initialised here (Unreal leaves them as is). */
	int32 AddUninitialized(int32 Count = 1)
	{
		const int32 First = Num();
		Items.resize(Items.size() + static_cast<size_t>(Count));
		return First;
	}
	int32 AddZeroed(int32 Count = 1) { return AddUninitialized(Count); }
	void Append(const T* Ptr, int32 Count) { Items.insert(Items.end(), Ptr, Ptr + Count); }
	void Append(const TArray& Other) { Items.insert(Items.end(), Other.Items.begin(), Other.Items.end()); }
	/** Empties the array, keeping its allocation. */
	void Reset(int32 NewSize = 0)
	{
		Items.clear();
		Items.reserve(static_cast<size_t>(NewSize));
	}
	void Empty(int32 Slack = 0)
	{
		std::vector<T>().swap(Items);
		Items.reserve(static_cast<size_t>(Slack));
	}
	void Reserve(int32 Count) { Items.reserve(static_cast<size_t>(Count)); }
	void SetNum(int32 Count) { Items.resize(static_cast<size_t>(Count)); }
	/** New elements are value-initialised here (Unreal leaves them as is). */
	void SetNumUninitialized(int32 Count) { SetNum(Count); }
	void SetNumZeroed(int32 Count) { SetNum(Count); }
	void Init(const T& Value, int32 Count) { Items.assign(static_cast<size_t>(Count), Value); }
	int32 Find(const T& Item) const
	{
		const auto It = std::find(Items.begin(), Items.end(), Item);
		return It == Items.end() ? -1 : static_cast<int32>(It - Items.begin());
	}
	bool Contains(const T& Item) const { return Find(Item) >= 0; }
	int32 Remove(const T& Item)
	{
		const size_t Before = Items.size();
		Items.erase(std::remove(Items.begin(), Items.end(), Item), Items.end());
		return static_cast<int32>(Before - Items.size());
	}
	void RemoveAt(int32 Index)
	{
		check(IsValidIndex(Index));
		Items.erase(Items.begin() + Index);
	}

	typename std::vector<T>::iterator begin() { return Items.begin(); }
	typename std::vector<T>::iterator end() { return Items.end(); }
	typename std::vector<T>::const_iterator begin() const { return Items.begin(); }
	typename std::vector<T>::const_iterator end() const { return Items.end(); }

	/** Stand-in only: the allocated capacity (for allocation checks). */
	int32 StandinCapacity() const { return static_cast<int32>(Items.capacity()); }

private:
	std::vector<T> Items;
};

/** Unreal's TSet: unique elements, insertion order (no removal reordering). */
template <typename T>
class TSet
{
public:
	TSet() = default;
	TSet(std::initializer_list<T> Init)
	{
		for (const T& Item : Init)
			Add(Item);
	}
	void Add(const T& Item)
	{
		if (!Contains(Item))
			Items.Add(Item);
	}
	bool Contains(const T& Item) const { return Items.Contains(Item); }
	int32 Remove(const T& Item) { return Items.Remove(Item); }
	int32 Num() const { return Items.Num(); }
	void Reset() { Items.Reset(); }
	void Empty() { Items.Empty(); }
	TArray<T> Array() const { return Items; }
	auto begin() { return Items.begin(); }
	auto end() { return Items.end(); }
	auto begin() const { return Items.begin(); }
	auto end() const { return Items.end(); }

private:
	TArray<T> Items;
};

template <typename K, typename V>
struct TPair
{
	K Key;
	V Value;
	TPair() = default;
	TPair(const K& InKey, const V& InValue) : Key(InKey), Value(InValue) {}
};

/** Unreal's TMap: insertion order while nothing is removed, as Unreal's. */
template <typename K, typename V>
class TMap
{
public:
	TMap() = default;
	TMap(std::initializer_list<TPair<K, V>> Init)
	{
		for (const TPair<K, V>& Pair : Init)
			Add(Pair.Key, Pair.Value);
	}
	V& Add(const K& Key, const V& Value)
	{
		if (V* Existing = Find(Key))
		{
			*Existing = Value;
			return *Existing;
		}
		Pairs.Emplace(Key, Value);
		return Pairs.Last().Value;
	}
	V* Find(const K& Key)
	{
		for (TPair<K, V>& Pair : Pairs)
			if (Pair.Key == Key)
				return &Pair.Value;
		return nullptr;
	}
	const V* Find(const K& Key) const
	{
		for (const TPair<K, V>& Pair : Pairs)
			if (Pair.Key == Key)
				return &Pair.Value;
		return nullptr;
	}
	bool Contains(const K& Key) const { return Find(Key) != nullptr; }
	int32 Remove(const K& Key)
	{
		for (int32 Index = 0; Index < Pairs.Num(); ++Index)
		{
			if (Pairs[Index].Key == Key)
			{
				Pairs.RemoveAt(Index);
				return 1;
			}
		}
		return 0;
	}
	void Reset() { Pairs.Reset(); }
	void Empty() { Pairs.Empty(); }
	int32 Num() const { return Pairs.Num(); }
	auto begin() { return Pairs.begin(); }
	auto end() { return Pairs.end(); }
	auto begin() const { return Pairs.begin(); }
	auto end() const { return Pairs.end(); }

private:
	TArray<TPair<K, V>> Pairs;
};

template <typename T>
using TSharedPtr = std::shared_ptr<T>;

// ---------------------------------------------------------------- strings

#include "StandinString.h"

// ------------------------------------------------------------ HAL bits

struct FPlatformTime
{
	/** Seconds from a monotonic clock. */
	static double Seconds();
};

struct FPlatformProcess
{
	/** dlopen (RTLD_NOW) of the UTF-8 conversion of Filename. */
	static void* GetDllHandle(const TCHAR* Filename);
	static void FreeDllHandle(void* Handle);
	static void Sleep(float Seconds);
};

/** Frames started so far (Unreal increments it once per engine frame). */
extern uint64 GFrameCounter;
bool IsInGameThread();

// ------------------------------------------------------------------ FApp

/** Misc/App.h: the engine's static settings (the game loop reads them). */
class FApp
{
public:
	static bool IsBenchmarking() { return bBenchmarking; }
	static void SetBenchmarking(bool bVal) { bBenchmarking = bVal; }
	static double GetFixedDeltaTime() { return FixedDeltaTime; }
	static void SetFixedDeltaTime(double Seconds) { FixedDeltaTime = Seconds; }
	static bool UseFixedTimeStep() { return bUseFixedTimeStep; }
	static void SetUseFixedTimeStep(bool bVal) { bUseFixedTimeStep = bVal; }
	/** The current frame's delta (UWorld::StandinTick sets it). */
	static double GetDeltaTime() { return DeltaTime; }
	static void SetDeltaTime(double Seconds) { DeltaTime = Seconds; }
	static double GetCurrentTime() { return CurrentTime; }
	static void SetCurrentTime(double Seconds) { CurrentTime = Seconds; }

private:
	static inline bool bBenchmarking = false;
	static inline double FixedDeltaTime = 1.0 / 30.0;
	static inline bool bUseFixedTimeStep = false;
	static inline double DeltaTime = 1.0 / 30.0;
	static inline double CurrentTime = 0.0;
};

// --------------------------------------------------------- trace scopes

/** A named CPU trace scope: entering records the name (thread-safe). */
class FStandinTraceScope
{
public:
	explicit FStandinTraceScope(const char* Name);
	explicit FStandinTraceScope(const TCHAR* Name);
	~FStandinTraceScope();
	FStandinTraceScope(const FStandinTraceScope&) = delete;
	FStandinTraceScope& operator=(const FStandinTraceScope&) = delete;
};

/** How many times a scope named Name was entered, on any thread. */
uint64 StandinTraceScopeCount(const char* Name);
/** Whether the calling thread is inside a scope named Name now. */
bool StandinInTraceScope(const char* Name);

// ProfilingDebugging/CpuProfilerTrace.h (Name is an identifier, as in Unreal).
#define TRACE_CPUPROFILER_EVENT_SCOPE(Name) FStandinTraceScope PREPROCESSOR_JOIN(StandinCpuProfilerScope_, __LINE__)(#Name)
#define TRACE_CPUPROFILER_EVENT_SCOPE_STR(NameStr) FStandinTraceScope PREPROCESSOR_JOIN(StandinCpuProfilerScope_, __LINE__)(NameStr)
#define TRACE_CPUPROFILER_EVENT_SCOPE_TEXT(Name) FStandinTraceScope PREPROCESSOR_JOIN(StandinCpuProfilerScope_, __LINE__)(Name)
// Stats/Stats.h: a cycle counter is recorded as a trace scope named after its
// StatId (the group is not checked).
#define DECLARE_STATS_GROUP(GroupDesc, GroupId, GroupCat) struct FStandinStatGroup_##GroupId
#define DECLARE_CYCLE_STAT(CounterName, StatId, GroupId)                       \
	struct FStat_##StatId                                                      \
	{                                                                          \
		static const char* StandinName() { return #StatId; }                   \
	}
#define SCOPE_CYCLE_COUNTER(Stat) FStandinTraceScope PREPROCESSOR_JOIN(StandinCycleCounter_, __LINE__)(FStat_##Stat::StandinName())
#define QUICK_SCOPE_CYCLE_COUNTER(Stat) FStandinTraceScope PREPROCESSOR_JOIN(StandinCycleCounter_, __LINE__)(#Stat)

// -------------------------------------------------------------- watchdog

/** STANDIN_WATCHDOG_MS (0 or unset: off): the budget of one render command
 *  or one actor Tick on the game thread. */
double StandinWatchdogBudgetMs();
/** The longest render command or (not exempted) actor Tick seen, in ms,
 *  watchdog on or off, and what it was. */
double StandinWatchdogLongestMs();
FString StandinWatchdogLongestWhat();

enum class EStandinWatchdogSlot
{
	GameThread,
	RenderThread,
};
/** Stand-in internals: times one unit of work in Slot (Describe(Subject)
 *  names it when it overruns or is the longest). */
void StandinWatchdogBegin(EStandinWatchdogSlot Slot, const void* Subject, std::string (*Describe)(const void*));
void StandinWatchdogEnd(EStandinWatchdogSlot Slot);

// ------------------------------------------------------------ UHT support

/** Whether Name is one of Names (the mini-UHT's UFUNCTION lists). */
bool StandinNameIn(const TCHAR* Name, std::initializer_list<const TCHAR*> Names);
