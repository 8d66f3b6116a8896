// The stand-in's world: spawning, play, the tick (with the physics step
// between TG_PrePhysics and TG_StartPhysics), line traces, oriented-box
// overlaps and hit notifications (see README.md).
#include "StandinEngine.h"
#include "StandinRender.h"

#include <atomic>

namespace
{
	constexpr double WorldDegToRad = 3.14159265358979323846 / 180.0;

	/** Separating-axis test of two oriented boxes; touching is not overlapping. */
	bool OrientedBoxesOverlap(const FTransform& A, const FVector& ExtentA, const FTransform& B, const FVector& ExtentB)
	{
		const FStandinAxes AxesA = A.Rotator().StandinAxes();
		const FStandinAxes AxesB = B.Rotator().StandinAxes();
		const FVector Between = B.GetLocation() - A.GetLocation();
		const double HalfA[3] = {ExtentA.X, ExtentA.Y, ExtentA.Z};
		const double HalfB[3] = {ExtentB.X, ExtentB.Y, ExtentB.Z};
		auto Separates = [&](const FVector& Candidate) {
			const double Length = Candidate.Size();
			if (Length < 1e-9)
				return false; // parallel edges: no axis
			const FVector Axis = Candidate / Length;
			double Reach = 0.0;
			for (int Index = 0; Index < 3; ++Index)
				Reach += HalfA[Index] * std::fabs(AxesA.Axis[Index] | Axis) + HalfB[Index] * std::fabs(AxesB.Axis[Index] | Axis);
			return std::fabs(Between | Axis) >= Reach - 1e-6;
		};
		for (int I = 0; I < 3; ++I)
		{
			if (Separates(AxesA.Axis[I]) || Separates(AxesB.Axis[I]))
				return false;
			for (int J = 0; J < 3; ++J)
				if (Separates(AxesA.Axis[I] ^ AxesB.Axis[J]))
					return false;
		}
		return true;
	}

	/** Ray Start + t·Delta, t in [0, 1], against an oriented box: the entry
	 *  time and the world normal of the entry face. Starting inside: no hit. */
	bool RayBox(const FTransform& Box, const FVector& Extent, const FVector& Start, const FVector& Delta, double& Time, FVector& Normal)
	{
		const FVector O = Box.InverseTransformPosition(Start);
		const FVector D = Box.InverseTransformVectorNoScale(Delta);
		const double Origin[3] = {O.X, O.Y, O.Z};
		const double Dir[3] = {D.X, D.Y, D.Z};
		const double Half[3] = {Extent.X, Extent.Y, Extent.Z};
		double Enter = -1e300, Exit = 1e300;
		int EnterAxis = -1;
		double EnterSign = 0.0;
		for (int Axis = 0; Axis < 3; ++Axis)
		{
			if (std::fabs(Dir[Axis]) < 1e-12)
			{
				if (std::fabs(Origin[Axis]) > Half[Axis])
					return false;
				continue;
			}
			double Near = (-Half[Axis] - Origin[Axis]) / Dir[Axis];
			double Far = (Half[Axis] - Origin[Axis]) / Dir[Axis];
			// The face entered first is the one facing the ray.
			double Sign = -1.0;
			if (Near > Far)
			{
				std::swap(Near, Far);
				Sign = 1.0;
			}
			if (Near > Enter)
			{
				Enter = Near;
				EnterAxis = Axis;
				EnterSign = Sign;
			}
			Exit = std::min(Exit, Far);
		}
		if (EnterAxis < 0 || Enter > Exit || Enter < 0.0 || Enter > 1.0)
			return false;
		FVector Local(0.0, 0.0, 0.0);
		(EnterAxis == 0 ? Local.X : EnterAxis == 1 ? Local.Y : Local.Z) = EnterSign;
		Time = Enter;
		Normal = Box.TransformVectorNoScale(Local);
		return true;
	}

	/** Whether a blocking box of Actor overlaps a blocking box of another live actor. */
	bool Encroaches(const AActor& Actor, const TArray<AActor*>& Others)
	{
		for (const UActorComponent* Mine : Actor.StandinComponents())
		{
			const UPrimitiveComponent* Primitive = Cast<const UPrimitiveComponent>(Mine);
			FTransform Box;
			FVector Extent;
			if (Primitive == nullptr || !Primitive->StandinBlocksTraces() || !Primitive->StandinBox(Box, Extent))
				continue;
			for (const AActor* Other : Others)
			{
				for (const UActorComponent* Theirs : Other->StandinComponents())
				{
					const UPrimitiveComponent* OtherPrimitive = Cast<const UPrimitiveComponent>(Theirs);
					FTransform OtherBox;
					FVector OtherExtent;
					if (Other != &Actor && OtherPrimitive != nullptr && OtherPrimitive->StandinBlocksTraces() &&
						OtherPrimitive->StandinBox(OtherBox, OtherExtent) && OrientedBoxesOverlap(Box, Extent, OtherBox, OtherExtent))
						return true;
				}
			}
		}
		return false;
	}

	std::string DescribeTick(const void* Subject)
	{
		const AActor* Actor = static_cast<const AActor*>(Subject);
		return "Tick of actor " + Actor->GetName().StandinStd();
	}

	/** Rodrigues: V rotated about the unit Axis by Angle radians. */
	FVector RotateAbout(const FVector& V, const FVector& Axis, double Angle)
	{
		return V * std::cos(Angle) + (Axis ^ V) * std::sin(Angle) + Axis * ((Axis | V) * (1.0 - std::cos(Angle)));
	}
}

// ------------------------------------------------------------- overlaps

void UPrimitiveComponent::GetOverlappingActors(TArray<AActor*>& OverlappingActors, TSubclassOf<AActor> ClassFilter) const
{
	OverlappingActors.Reset();
	const UWorld* World = GetWorld();
	FTransform Box;
	FVector Extent;
	if (World == nullptr || !StandinOverlaps() || !StandinBox(Box, Extent))
		return;
	const UClass* Filter = ClassFilter;
	for (AActor* Actor : World->StandinActors())
	{
		if (Actor == GetOwner() || (Filter != nullptr && !Actor->IsA(Filter)))
			continue;
		for (UActorComponent* Component : Actor->StandinComponents())
		{
			const UPrimitiveComponent* Other = Cast<UPrimitiveComponent>(Component);
			FTransform OtherBox;
			FVector OtherExtent;
			if (Other != nullptr && Other->StandinOverlaps() && Other->StandinBox(OtherBox, OtherExtent) &&
				OrientedBoxesOverlap(Box, Extent, OtherBox, OtherExtent))
			{
				OverlappingActors.AddUnique(Actor);
				break;
			}
		}
	}
}

void UPrimitiveComponent::GetOverlappingActors(TSet<AActor*>& OverlappingActors, TSubclassOf<AActor> ClassFilter) const
{
	TArray<AActor*> Found;
	GetOverlappingActors(Found, ClassFilter);
	OverlappingActors.Reset();
	for (AActor* Actor : Found)
		OverlappingActors.Add(Actor);
}

// ------------------------------------------------------------------ world

const FCollisionQueryParams FCollisionQueryParams::DefaultQueryParam;

UWorld::~UWorld()
{
	StandinEndPlay();
}

void UWorld::StandinCheckSpawnClass(const UClass* Class, const UClass* Expected)
{
	if (Class == nullptr)
		STANDIN_FATAL("SpawnActor: no class given");
	if (Class != Expected)
		STANDIN_FATAL("SpawnActor<T>(%s): the stand-in can only spawn T itself (%s), not another class",
			Class->GetName().StandinStd().c_str(), Expected->GetName().StandinStd().c_str());
}

AActor* UWorld::StandinAddActor(AActor* Actor, const FTransform& Transform, const FActorSpawnParameters& Params)
{
	StandinCheckWorldMutation("SpawnActor");
	Owned.emplace_back(Actor);
	if (!Params.Name.IsNone())
		Actor->StandinSetName(Params.Name.ToString());
	Actor->SetOwner(Params.Owner);
	Actor->SetInstigator(Params.Instigator);
	Actor->StandinPlace(this, Transform);
	const ESpawnActorCollisionHandlingMethod Method = Params.SpawnCollisionHandlingOverride;
	if ((Method == ESpawnActorCollisionHandlingMethod::DontSpawnIfColliding ||
			Method == ESpawnActorCollisionHandlingMethod::AdjustIfPossibleButDontSpawnIfColliding) &&
		Encroaches(*Actor, ActorList))
	{
		std::fprintf(stderr, "stand-in: SpawnActor failed because of collision at the spawn location for %s\n", Actor->GetName().StandinStd().c_str());
		Actor->StandinMarkPendingKill();
		return nullptr;
	}
	AllActors.Add(Actor);
	ActorList.Add(Actor);
	Actor->StandinSetDeferred(Params.bDeferConstruction);
	if (bBegunPlay && !Params.bDeferConstruction)
		Actor->DispatchBeginPlay();
	// A copy: a handler may add or remove handlers.
	const std::vector<std::pair<uint64, FOnActorSpawned::FDelegate>> Handlers = SpawnHandlers;
	for (const auto& Handler : Handlers)
		Handler.second.Call(Actor);
	return Actor;
}

FDelegateHandle UWorld::AddOnActorSpawnedHandler(const FOnActorSpawned::FDelegate& InHandler)
{
	check(IsInGameThread());
	const uint64 Id = NextHandlerId++;
	SpawnHandlers.push_back({Id, InHandler});
	return FDelegateHandle(Id);
}

void UWorld::RemoveOnActorSpawnedHandler(FDelegateHandle InHandle)
{
	check(IsInGameThread());
	for (size_t Index = 0; Index < SpawnHandlers.size(); ++Index)
		if (SpawnHandlers[Index].first == InHandle.StandinId())
		{
			SpawnHandlers.erase(SpawnHandlers.begin() + static_cast<std::ptrdiff_t>(Index));
			return;
		}
}

int32 UWorld::StandinCollectGarbage()
{
	check(IsInGameThread());
	StandinCheckWorldMutation("garbage collection");
	FlushRenderingCommands(); // Unreal: the render thread lets go first
	int32 Collected = 0;
	for (int32 Index = AllActors.Num() - 1; Index >= 0; --Index)
	{
		AActor* Actor = AllActors[Index];
		if (Actor->IsPendingKill())
		{
			Actor->StandinCollect();
			AllActors.RemoveAt(Index);
			++Collected;
		}
	}
	return Collected;
}

void UWorld::StandinRemoveActor(AActor* Actor)
{
	ActorList.Remove(Actor);
}

void UWorld::StandinBeginPlay()
{
	check(IsInGameThread() && !bBegunPlay);
	bBegunPlay = true;
	// By index: a BeginPlay may spawn actors (they begin at spawn).
	const int32 Count = AllActors.Num();
	for (int32 Index = 0; Index < Count; ++Index)
	{
		AActor* Actor = AllActors[Index];
		if (!Actor->IsPendingKill() && !Actor->HasActorBegunPlay() && !Actor->StandinIsDeferred())
			Actor->DispatchBeginPlay();
	}
}

void UWorld::StandinTick(float InDeltaSeconds)
{
	check(IsInGameThread() && bBegunPlay);
	StandinCheckWorldMutation("UWorld::StandinTick");
	DeltaSeconds = InDeltaSeconds;
	TimeSeconds += InDeltaSeconds;
	FApp::SetDeltaTime(InDeltaSeconds);
	FApp::SetCurrentTime(FApp::GetCurrentTime() + InDeltaSeconds);
	std::vector<AActor*> Ticking;
	for (AActor* Actor : ActorList)
	{
		if (Actor->PrimaryActorTick.bCanEverTick && Actor->HasActorBegunPlay())
			Ticking.push_back(Actor);
	}
	std::stable_sort(Ticking.begin(), Ticking.end(),
		[](const AActor* A, const AActor* B) { return A->PrimaryActorTick.TickGroup < B->PrimaryActorTick.TickGroup; });
	bool bPhysicsStepped = false;
	for (AActor* Actor : Ticking)
	{
		if (!bPhysicsStepped && Actor->PrimaryActorTick.TickGroup >= TG_StartPhysics)
		{
			StandinStepPhysics(InDeltaSeconds);
			bPhysicsStepped = true;
		}
		// Destroyed (or tick disabled) by an earlier tick this frame: skipped.
		if (Actor->IsPendingKill() || !Actor->HasActorBegunPlay() || !Actor->IsActorTickEnabled())
			continue;
		// A tick interval: the actor ticks once that much game time passed,
		// with all of it as its delta.
		float ActorDelta = InDeltaSeconds;
		FActorTickFunction& TickFunction = Actor->PrimaryActorTick;
		if (TickFunction.TickInterval > 0.0f)
		{
			TickFunction.StandinSinceTick += InDeltaSeconds;
			if (TickFunction.StandinSinceTick + 1e-4f < TickFunction.TickInterval)
				continue;
			ActorDelta = TickFunction.StandinSinceTick;
			TickFunction.StandinSinceTick = 0.0f;
		}
		const bool bTimed = !Actor->bStandinWatchdogExempt;
		if (bTimed)
			StandinWatchdogBegin(EStandinWatchdogSlot::GameThread, Actor, &DescribeTick);
		Actor->Tick(ActorDelta);
		if (bTimed)
			StandinWatchdogEnd(EStandinWatchdogSlot::GameThread);
	}
	if (!bPhysicsStepped)
		StandinStepPhysics(InDeltaSeconds);
}

UPhysicsSettings* UPhysicsSettings::Get()
{
	static UPhysicsSettings* Settings = StandinConstruct<UPhysicsSettings>();
	return Settings;
}

namespace
{
	double GPhysicsSeconds = 0.0;
	int32 GPhysicsSubsteps = 0;
}

double StandinPhysicsSimulatedSeconds()
{
	return GPhysicsSeconds;
}

int32 StandinPhysicsSubstepsLastFrame()
{
	return GPhysicsSubsteps;
}

void UWorld::StandinStepPhysics(float FrameDelta)
{
	// As Unreal's physics scene: the frame's delta clamped to
	// MaxPhysicsDeltaTime, then (substepping) cut into at most MaxSubsteps
	// steps of about MaxSubstepDeltaTime.
	const UPhysicsSettings& Settings = *UPhysicsSettings::Get();
	const float UseDelta = std::min(FrameDelta, Settings.MaxPhysicsDeltaTime);
	int32 Steps = 1;
	if (Settings.bSubstepping && Settings.MaxSubstepDeltaTime > 0.0f)
		Steps = std::max(1, std::min(Settings.MaxSubsteps, static_cast<int32>(std::ceil(UseDelta / Settings.MaxSubstepDeltaTime - 1e-4f))));
	GPhysicsSeconds += UseDelta;
	GPhysicsSubsteps = Steps;
	for (int32 Step = 0; Step < Steps; ++Step)
		StandinStepBodies(UseDelta / static_cast<float>(Steps));
}

void UWorld::StandinStepBodies(float Dt)
{
	for (AActor* Actor : ActorList)
	{
		UPrimitiveComponent* Body = Cast<UPrimitiveComponent>(Actor->GetRootComponent());
		if (Body == nullptr || !Body->IsSimulatingPhysics())
			continue;
		const FTransform Now = Body->GetComponentTransform();
		const FVector Velocity = Body->GetPhysicsLinearVelocity();
		const FVector Spin = Body->GetPhysicsAngularVelocityInDegrees();
		FRotator Rotation = Now.Rotator();
		const double Rate = Spin.Size();
		if (Rate > 1e-12)
		{
			FStandinAxes Axes = Rotation.StandinAxes();
			for (FVector& Axis : Axes.Axis)
				Axis = RotateAbout(Axis, Spin / Rate, Rate * WorldDegToRad * Dt);
			Rotation = FRotator::StandinFromAxes(Axes);
		}
		Body->SetWorldTransform(FTransform(Rotation, Now.GetLocation() + Velocity * Dt), false, nullptr, ETeleportType::None);
	}
}

void UWorld::StandinEndPlay()
{
	for (int32 Index = AllActors.Num() - 1; Index >= 0; --Index)
	{
		if (!AllActors[Index]->IsPendingKill())
			AllActors[Index]->RouteEndPlay(EEndPlayReason::Quit);
	}
	bBegunPlay = false;
}

bool UWorld::LineTraceSingleByChannel(FHitResult& OutHit, const FVector& Start, const FVector& End, ECollisionChannel TraceChannel,
	const FCollisionQueryParams& Params) const
{
	if (!IsInGameThread() && !StandinIsGameParallelForWorker())
		STANDIN_FATAL("LineTraceSingleByChannel off the game thread: only legal there or on the workers of a ParallelFor the game "
					  "thread launched");
	OutHit = FHitResult();
	OutHit.TraceStart = Start;
	OutHit.TraceEnd = End;
	const FVector Delta = End - Start;
	double Best = 2.0;
	for (AActor* Actor : ActorList)
	{
		if (Params.StandinIgnores(Actor))
			continue;
		for (UActorComponent* Component : Actor->StandinComponents())
		{
			UPrimitiveComponent* Primitive = Cast<UPrimitiveComponent>(Component);
			FTransform Box;
			FVector Extent, Normal;
			double Time = 0.0;
			if (Primitive == nullptr || !Primitive->StandinBlocks(TraceChannel) || !Primitive->StandinBox(Box, Extent) ||
				!RayBox(Box, Extent, Start, Delta, Time, Normal) || Time >= Best)
				continue;
			Best = Time;
			OutHit.bBlockingHit = true;
			OutHit.Time = static_cast<float>(Time);
			OutHit.Distance = static_cast<float>(Delta.Size() * Time);
			OutHit.Location = OutHit.ImpactPoint = Start + Delta * Time;
			OutHit.Normal = OutHit.ImpactNormal = Normal;
			OutHit.StandinSetHit(Actor, Primitive);
		}
	}
	return OutHit.bBlockingHit;
}

// ------------------------------------------------------ stand-in controls

void StandinNotifyHit(AActor* Self, AActor* Other, const FVector& NormalImpulse)
{
	check(IsInGameThread());
	if (!IsValid(Self))
		return;
	UPrimitiveComponent* MyComp = Cast<UPrimitiveComponent>(Self->GetRootComponent());
	if (MyComp == nullptr || !MyComp->BodyInstance.bNotifyRigidBodyCollision)
	{
		static std::atomic<bool> bNoted{false};
		if (!bNoted.exchange(true))
			std::fprintf(stderr, "stand-in: hit on %s not notified: its root primitive has no SetNotifyRigidBodyCollision(true) "
								 "(Unreal drops it too)\n",
				Self->GetName().StandinStd().c_str());
		return;
	}
	UPrimitiveComponent* OtherComp = Other != nullptr ? Cast<UPrimitiveComponent>(Other->GetRootComponent()) : nullptr;
	FHitResult Hit;
	Hit.bBlockingHit = true;
	Hit.TraceStart = Hit.TraceEnd = Self->GetActorLocation();
	Hit.Location = Hit.ImpactPoint = Other != nullptr ? (Self->GetActorLocation() + Other->GetActorLocation()) * 0.5 : Self->GetActorLocation();
	Hit.Normal = Hit.ImpactNormal = NormalImpulse.GetSafeNormal();
	Hit.StandinSetHit(Other, OtherComp);
	Self->NotifyHit(MyComp, Other, OtherComp, true, Hit.ImpactPoint, Hit.ImpactNormal, NormalImpulse, Hit);
	Self->OnActorHit.Broadcast(Self, Other, NormalImpulse, Hit);
}

void StandinWatchdogExempt(AActor* Actor)
{
	check(Actor != nullptr);
	Actor->bStandinWatchdogExempt = true;
}
