// The stand-in's core: fatal checks, the HAL bits, maths, trace scopes and
// the watchdog (see README.md).
#include "StandinCore.h"

#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <thread>

uint64 GFrameCounter = 0;

namespace
{
	const std::thread::id GGameThread = std::this_thread::get_id();
	constexpr double DegToRad = 3.14159265358979323846 / 180.0;
}

bool IsInGameThread()
{
	return std::this_thread::get_id() == GGameThread;
}

void StandinFatal(const char* File, int Line, const char* What)
{
	std::fprintf(stderr, "stand-in check failed at %s:%d: %s\n", File, Line, What);
	std::fflush(stderr);
	std::abort();
}

void StandinFatalf(const char* File, int Line, const char* Format, ...)
{
	char Message[2048];
	va_list Args;
	va_start(Args, Format);
	std::vsnprintf(Message, sizeof Message, Format, Args);
	va_end(Args);
	StandinFatal(File, Line, Message);
}

double FPlatformTime::Seconds()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void* FPlatformProcess::GetDllHandle(const TCHAR* Filename)
{
	return dlopen(FTCHARToUTF8(Filename).Get(), RTLD_NOW);
}

void FPlatformProcess::FreeDllHandle(void* Handle)
{
	dlclose(Handle);
}

void FPlatformProcess::Sleep(float Seconds)
{
	std::this_thread::sleep_for(std::chrono::duration<double>(Seconds));
}

// ------------------------------------------------------------------- math

const FVector FVector::ZeroVector(0.0, 0.0, 0.0);
const FVector FVector::OneVector(1.0, 1.0, 1.0);
const FVector FVector::UpVector(0.0, 0.0, 1.0);
const FVector FVector::ForwardVector(1.0, 0.0, 0.0);
const FVector FVector::RightVector(0.0, 1.0, 0.0);
const FRotator FRotator::ZeroRotator(0.0, 0.0, 0.0);
const FTransform FTransform::Identity;
const FIntPoint FIntPoint::ZeroValue(0, 0);
const FColor FColor::Black(0, 0, 0, 255);
const FColor FColor::White(255, 255, 255, 255);

FStandinAxes FRotator::StandinAxes() const
{
	const double SP = std::sin(Pitch * DegToRad), CP = std::cos(Pitch * DegToRad);
	const double SY = std::sin(Yaw * DegToRad), CY = std::cos(Yaw * DegToRad);
	const double SR = std::sin(Roll * DegToRad), CR = std::cos(Roll * DegToRad);
	FStandinAxes Axes;
	Axes.Axis[0] = FVector(CP * CY, CP * SY, SP);
	Axes.Axis[1] = FVector(SR * SP * CY - CR * SY, SR * SP * SY + CR * CY, -SR * CP);
	Axes.Axis[2] = FVector(-(CR * SP * CY + SR * SY), CY * SR - CR * SP * SY, CR * CP);
	return Axes;
}

FRotator FRotator::StandinFromAxes(const FStandinAxes& Axes)
{
	const FVector& X = Axes.Axis[0];
	const double NewPitch = std::atan2(X.Z, std::sqrt(X.X * X.X + X.Y * X.Y)) / DegToRad;
	const double NewYaw = std::atan2(X.Y, X.X) / DegToRad;
	const FVector NoRollY = FRotator(NewPitch, NewYaw, 0.0).StandinAxes().Axis[1];
	const double NewRoll = std::atan2(Axes.Axis[2] | NoRollY, Axes.Axis[1] | NoRollY) / DegToRad;
	return FRotator(NewPitch, NewYaw, NewRoll);
}

FTransform FTransform::operator*(const FTransform& Parent) const
{
	const FStandinAxes Mine = Rotation.StandinAxes();
	const FStandinAxes Theirs = Parent.Rotation.StandinAxes();
	FStandinAxes World;
	for (int Index = 0; Index < 3; ++Index)
	{
		World.Axis[Index] = Theirs.Rotate(Mine.Axis[Index]);
	}
	return FTransform(FRotator::StandinFromAxes(World), Parent.TransformPosition(Location));
}

FTransform FTransform::GetRelativeTransform(const FTransform& Other) const
{
	const FStandinAxes Mine = Rotation.StandinAxes();
	const FStandinAxes Theirs = Other.Rotation.StandinAxes();
	FStandinAxes Relative;
	for (int Index = 0; Index < 3; ++Index)
	{
		Relative.Axis[Index] = Theirs.Unrotate(Mine.Axis[Index]);
	}
	return FTransform(FRotator::StandinFromAxes(Relative), Other.InverseTransformPosition(Location));
}

FBox FBox::TransformBy(const FTransform& Transform) const
{
	FBox Result(ForceInit);
	if (!IsValid)
		return Result;
	for (int Corner = 0; Corner < 8; ++Corner)
	{
		const FVector Point((Corner & 1) ? Max.X : Min.X, (Corner & 2) ? Max.Y : Min.Y, (Corner & 4) ? Max.Z : Min.Z);
		Result += Transform.TransformPosition(Point);
	}
	return Result;
}

// ------------------------------------------------------------ trace scopes

namespace
{
	std::mutex GTraceMutex;
	std::map<std::string, uint64> GTraceCounts;
	thread_local std::vector<std::string> GTraceStack;
}

FStandinTraceScope::FStandinTraceScope(const char* Name)
{
	const std::lock_guard<std::mutex> Lock(GTraceMutex);
	++GTraceCounts[Name];
	GTraceStack.push_back(Name);
}

FStandinTraceScope::FStandinTraceScope(const TCHAR* Name) : FStandinTraceScope(FTCHARToUTF8(Name).Get()) {}

FStandinTraceScope::~FStandinTraceScope()
{
	GTraceStack.pop_back();
}

uint64 StandinTraceScopeCount(const char* Name)
{
	const std::lock_guard<std::mutex> Lock(GTraceMutex);
	const auto Found = GTraceCounts.find(Name);
	return Found == GTraceCounts.end() ? 0 : Found->second;
}

bool StandinInTraceScope(const char* Name)
{
	for (const std::string& Open : GTraceStack)
		if (Open == Name)
			return true;
	return false;
}

// ---------------------------------------------------------------- watchdog

namespace
{
	struct FWatchdogSlot
	{
		bool bActive = false;
		double Start = 0.0;
		const void* Subject = nullptr;
		std::string (*Describe)(const void*) = nullptr;
	};

	/** Times each unit of work; a monitor thread catches one that never ends. */
	class FWatchdog
	{
	public:
		FWatchdog()
		{
			const char* Budget = std::getenv("STANDIN_WATCHDOG_MS");
			BudgetMs = Budget != nullptr ? std::atof(Budget) : 0.0;
		}

		void Begin(EStandinWatchdogSlot Which, const void* Subject, std::string (*Describe)(const void*))
		{
			const std::lock_guard<std::mutex> Lock(Mutex);
			FWatchdogSlot& Slot = Slots[static_cast<int>(Which)];
			Slot = FWatchdogSlot{true, FPlatformTime::Seconds(), Subject, Describe};
			if (BudgetMs > 0.0 && !Monitor.joinable())
				Monitor = std::thread([this] { Run(); });
		}

		void End(EStandinWatchdogSlot Which)
		{
			const std::lock_guard<std::mutex> Lock(Mutex);
			FWatchdogSlot& Slot = Slots[static_cast<int>(Which)];
			const double Ms = (FPlatformTime::Seconds() - Slot.Start) * 1000.0;
			Slot.bActive = false;
			if (Ms > LongestMs)
			{
				LongestMs = Ms;
				LongestWhat = Slot.Describe(Slot.Subject);
			}
			if (BudgetMs > 0.0 && Ms > BudgetMs)
				STANDIN_FATAL("watchdog: %s took %.0f ms, over the %.0f ms budget (STANDIN_WATCHDOG_MS)", Slot.Describe(Slot.Subject).c_str(),
					Ms, BudgetMs);
		}

		double BudgetMs = 0.0;
		std::mutex Mutex;
		double LongestMs = 0.0;
		std::string LongestWhat;

	private:
		void Run()
		{
			std::unique_lock<std::mutex> Lock(Mutex);
			const auto Period = std::chrono::duration<double, std::milli>(std::min(50.0, std::max(1.0, BudgetMs / 4.0)));
			for (;;)
			{
				Wake.wait_for(Lock, Period);
				const double Now = FPlatformTime::Seconds();
				for (const FWatchdogSlot& Slot : Slots)
				{
					const double Ms = (Now - Slot.Start) * 1000.0;
					if (Slot.bActive && Ms > BudgetMs)
						STANDIN_FATAL("watchdog: %s has run for %.0f ms and is still running, over the %.0f ms budget (STANDIN_WATCHDOG_MS)",
							Slot.Describe(Slot.Subject).c_str(), Ms, BudgetMs);
				}
			}
		}

		FWatchdogSlot Slots[2];
		std::condition_variable Wake;
		std::thread Monitor; // runs until the process exits
	};

	/** Never destroyed: the render thread may still report to it while
	 *  statics are destroyed at exit. */
	FWatchdog& Watchdog()
	{
		static FWatchdog* const Instance = new FWatchdog();
		return *Instance;
	}
}

double StandinWatchdogBudgetMs()
{
	return Watchdog().BudgetMs;
}

double StandinWatchdogLongestMs()
{
	FWatchdog& W = Watchdog();
	const std::lock_guard<std::mutex> Lock(W.Mutex);
	return W.LongestMs;
}

FString StandinWatchdogLongestWhat()
{
	FWatchdog& W = Watchdog();
	const std::lock_guard<std::mutex> Lock(W.Mutex);
	return FString::StandinFromUtf8(W.LongestWhat);
}

void StandinWatchdogBegin(EStandinWatchdogSlot Slot, const void* Subject, std::string (*Describe)(const void*))
{
	Watchdog().Begin(Slot, Subject, Describe);
}

void StandinWatchdogEnd(EStandinWatchdogSlot Slot)
{
	Watchdog().End(Slot);
}
