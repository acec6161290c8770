#include "ctld/server/mail_sender.h"

#include <unistd.h>

#include "common/log.h"
#include "ctld/server/controller_program.h"

namespace rota::ctld {

std::string MailProgram(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (access("/bin/mail", X_OK) != 0 && access("/usr/bin/mail", X_OK) == 0) return "/usr/bin/mail";
  return "/bin/mail";
}

MailSender::MailSender(std::string program, std::unique_ptr<EffectSink> next)
    : next_(std::move(next)), program_(std::move(program)) {
  thread_ = std::thread([this] { Run(); });
}

MailSender::~MailSender() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void MailSender::Carry(const Effects& effects) {
  if (!effects.mails.empty()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.insert(queue_.end(), effects.mails.begin(), effects.mails.end());
    }
    cv_.notify_one();
  }
  if (next_ != nullptr &&
      (!effects.launches.empty() || !effects.signals.empty() || !effects.scripts.empty())) {
    next_->Carry(effects);
  }
}

void MailSender::SetProgram(std::string program) {
  std::lock_guard<std::mutex> lock(mu_);
  program_ = std::move(program);
}

void MailSender::Run() {
  for (;;) {
    MailNotice mail;
    std::string program;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      mail = std::move(queue_.front());
      queue_.pop_front();
      program = program_;
    }
    ProgramOutcome sent = RunControllerProgram({program, "-s", mail.subject, mail.recipient},
                                               mail.environment, kTimeout);
    if (sent.ok) {
      spdlog::info("job {}: mailed {} \"{}\"", mail.job_id, mail.recipient, mail.subject);
    } else {
      spdlog::error("job {}: MailProg {} {}; its output was '{}'", mail.job_id, program,
                    sent.problem, sent.output);
    }
  }
}

}  // namespace rota::ctld
