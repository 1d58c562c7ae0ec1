import { Module } from '@nestjs/common';
import { BuildController } from './building/build.controller';
import { BuildService } from './building/build.service';
import { InclusionFeePricer } from './building/inclusion-fee-pricer';
import { TransactionAssembler } from './building/transaction-assembler';
import { UnwindRouter } from './building/unwind-router';
import { TxbLedger } from './ledger/txb-ledger';
import { PositionReader } from './positions/position.reader';
import { ProposalAccountMigration } from './proposals/proposal-account-migration';
import { ProposalRepository } from './proposals/proposal.repository';
import { ProposalsController } from './proposals/proposals.controller';
import { ProposalsService } from './proposals/proposals.service';
import { StatusController } from './status/status.controller';
import { SubmissionService } from './submission/submission.service';
import { SubmitController } from './submission/submit.controller';
import { TransactionSender } from './submission/transaction-sender';
import { Tracker } from './tracking/tracker';
import { TrackingRepository } from './tracking/tracking.repository';

@Module({
  controllers: [BuildController, ProposalsController, SubmitController, StatusController],
  providers: [
    TxbLedger,
    PositionReader,
    TransactionAssembler,
    InclusionFeePricer,
    UnwindRouter,
    BuildService,
    ProposalRepository,
    ProposalAccountMigration,
    ProposalsService,
    TransactionSender,
    SubmissionService,
    TrackingRepository,
    Tracker,
  ],
})
export class TxbModule {}
