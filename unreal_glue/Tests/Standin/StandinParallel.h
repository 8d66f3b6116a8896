// Stand-in for Templates/Function.h (TFunctionRef) and Async/ParallelFor.h:
// ParallelFor runs its body on the calling thread and up to three workers.
// While a ParallelFor launched from the game thread runs, its workers may
// trace (UWorld::LineTraceSingleByChannel) and nobody may change the world.
// See README.md.
#pragma once

#include "StandinCore.h"

#include <type_traits>

template <typename FuncType>
class TFunctionRef;

/** A non-owning reference to a callable (valid while the callable lives). */
template <typename Ret, typename... ParamTypes>
class TFunctionRef<Ret(ParamTypes...)>
{
public:
	template <typename FunctorType,
		typename = typename std::enable_if<!std::is_same<typename std::decay<FunctorType>::type, TFunctionRef>::value>::type>
	TFunctionRef(FunctorType&& Functor)
		: Callable(const_cast<void*>(static_cast<const void*>(&Functor)))
		, Invoker(&Invoke<typename std::remove_reference<FunctorType>::type>)
	{
	}
	TFunctionRef(const TFunctionRef&) = default;
	TFunctionRef& operator=(const TFunctionRef&) = delete;

	Ret operator()(ParamTypes... Params) const { return Invoker(Callable, std::forward<ParamTypes>(Params)...); }

private:
	template <typename FunctorType>
	static Ret Invoke(void* InCallable, ParamTypes... Params)
	{
		return (*static_cast<FunctorType*>(InCallable))(std::forward<ParamTypes>(Params)...);
	}

	void* Callable;
	Ret (*Invoker)(void*, ParamTypes...);
};

enum class EParallelForFlags
{
	None = 0,
	ForceSingleThread = 1,
	Unbalanced = 2,
	PumpRenderingThread = 4,
	BackgroundPriority = 8,
};
inline EParallelForFlags operator|(EParallelForFlags A, EParallelForFlags B)
{
	return static_cast<EParallelForFlags>(static_cast<int>(A) | static_cast<int>(B));
}

/** Body(0) … Body(Num − 1), split into up to four contiguous blocks: one on
 *  the calling thread, the others on worker threads (a nested ParallelFor
 *  runs on its caller's thread). Unreal's two shapes (UE 4.26 and 5.x):
 *  `ParallelFor(Num, Body)` takes the flags overload. */
void ParallelFor(int32 Num, TFunctionRef<void(int32)> Body, EParallelForFlags Flags = EParallelForFlags::None);
void ParallelFor(int32 Num, TFunctionRef<void(int32)> Body, bool bForceSingleThread, bool bPumpRenderingThread = false);

/** The most distinct threads that ran bodies of one ParallelFor so far. */
int32 StandinParallelForThreads();
/** ParallelFor calls so far. */
uint64 StandinParallelForCalls();
